import {
  AccountSettings,
  accountGuardChange,
  accountGuardGet,
  accountSettingsAuditPage,
  GuardChange,
  principalOf,
  requireToken,
  SettingsAudit,
} from '../accounts/index.js';
import { errorResponses, PageQuery, paginated } from '../http/schemas.js';
import type { Routes } from '../http/server.js';

/**
 * The client's view of its fraud guard and consent settings (TOKEN_2, DESIGN 20): read them, narrow the operator's
 * (a loosening is 403 4030), and read the audit of every change by either side.
 */
export const settingsRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['Settings'];

  app.get(
    '/api/v1/settings',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's guard and consent settings: the operator's, the client's narrowing, the effective ones",
        security,
        response: { 200: AccountSettings, ...errorResponses(401, 403) },
      },
    },
    async (request) => (await accountGuardGet(ctx.db, principalOf(request).accountId))!,
  );

  app.patch(
    '/api/v1/settings',
    {
      onRequest,
      schema: {
        tags,
        summary: "Narrow the operator's settings; null removes the account's own narrowing of a field",
        security,
        body: GuardChange,
        response: { 200: AccountSettings, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const actor = principal.createdByUser !== null ? `user:${principal.createdByUser}` : `token:${principal.tokenId}`;
      return (await accountGuardChange(ctx.db, principal.accountId, 'client', actor, request.body, ctx.clock.now()))!;
    },
  );

  app.get(
    '/api/v1/settings/audit',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Who changed the settings (operator, token:<key id>, user:<id>), when, before and after; newest first',
        security,
        querystring: PageQuery,
        response: { 200: paginated(SettingsAudit), ...errorResponses(401, 403) },
      },
    },
    async (request) => accountSettingsAuditPage(ctx.db, principalOf(request).accountId, request.query),
  );
};
