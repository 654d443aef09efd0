import { principalOf, requireToken } from './principal.js';
import { Balance, errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { accountGet, balanceOf } from './accounts.js';

/** GET /api/v1/balance with a token of either type (spec section 4). */
export const balanceRoutes: Routes = (app, ctx) => {
  app.get(
    '/api/v1/balance',
    {
      onRequest: requireToken(ctx, ['traffic', 'system']),
      schema: {
        tags: ['Account'],
        summary: 'Account balance per currency',
        security: [{ basicToken: [] }],
        response: { 200: Balance, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const account = await accountGet(ctx.db, accountId);
      return balanceOf(ctx.db, accountId, account!.currency);
    },
  );
};
