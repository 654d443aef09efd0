import { Type } from 'typebox';
import { lockAccount } from '../db/accountLocks.js';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { statsRange } from '../statistics/index.js';
import { isoUtc } from '../util/time.js';
import { verificationStatistics } from './verificationStatistics.js';
import {
  GatewayIdParam,
  VerificationStatisticsObject,
  VerificationStatisticsQuery,
  VerifierCreate,
  VerifierObject,
  VerifierUpdate,
} from './verifierSchemas.js';
import {
  verifierCount,
  verifierDelete,
  verifierGet,
  verifierInsert,
  verifierList,
  verifierUpdate,
} from './verifierSql.js';
import { newGatewayId, settingsOfCreate, settingsOfUpdate, validateWorkflow, verifierToApi } from './verifiers.js';

/**
 * Verifiers an account keeps: a verifier is a brand, a handful of workflows (one per sign-in page or app) is what an
 * account needs; 100 leaves room and keeps a list one page.
 */
export const VERIFIERS_PER_ACCOUNT = 100;

/** The body of the largest valid verifier (6 steps, every string escaped at worst) is under 16 KiB. */
const VERIFIER_BODY_LIMIT = 16 * 1024;

/** Verifiers (DESIGN 16), with TOKEN_2: create, list, get, update, delete. */
export const verifierRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['Verification'];
  const notFound = (gatewayId: string) => herald('notFound', { what: `Verifier ${gatewayId}` });

  app.post(
    '/api/v1/verifiers',
    {
      onRequest,
      bodyLimit: VERIFIER_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Create a verifier: how one-time codes are made and over which channels they are sent',
        description:
          'Each workflow step is validated as the message it will send (an active sender name, `voicecode` for ' +
          'VOICECODE, codeLength 4 with a FLASHCALL step, the channel enabled); an error names the step (0-based). ' +
          `At most ${VERIFIERS_PER_ACCOUNT} per account (409 4094).`,
        security,
        body: VerifierCreate,
        response: { 201: VerifierObject, ...errorResponses(401, 403, 409, 413, 422) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const now = ctx.clock.now();
      const settings = settingsOfCreate(request.body);
      await validateWorkflow(ctx, principal, settings, now);
      const row = await ctx.db.transaction(async (tx) => {
        await lockAccount(tx, 'verifiers', principal.accountId);
        if ((await verifierCount(tx, principal.accountId)) >= VERIFIERS_PER_ACCOUNT)
          throw herald('perAccountLimit', { what: 'verifiers', limit: VERIFIERS_PER_ACCOUNT });
        return verifierInsert(tx, principal.accountId, newGatewayId(), settings, now);
      });
      return reply.status(201).send(verifierToApi(row));
    },
  );

  app.get(
    '/api/v1/verifiers',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's verifiers, oldest first",
        security,
        response: { 200: Type.Object({ items: Type.Array(VerifierObject) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: (await verifierList(ctx.db, principalOf(request).accountId)).map(verifierToApi) }),
  );

  app.get(
    '/api/v1/verifiers/statistics',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Codes sent in [from, to): sends, confirmations and conversion rate per verifier and per channel',
        description:
          "A verifier's sends are its codes, confirmations the codes confirmed; a channel's sends are the workflow " +
          'steps that left Herald on it, its confirmations the codes confirmed after a step of it (the last step ' +
          'sent before the check). Codes deleted a day after they expired are counted by the hour they were sent ' +
          'in (the hour must begin in [from, to)). Every verifier of the account is listed, and a deleted one ' +
          'with figures (name null).',
        security,
        querystring: VerificationStatisticsQuery,
        response: { 200: VerificationStatisticsObject, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const { from, to } = statsRange(request.query, ctx.clock.now());
      const gatewayId = request.query.gatewayId ?? null;
      const figures = await verificationStatistics(ctx.db, principalOf(request).accountId, { from, to, gatewayId });
      return { from: isoUtc(from)!, to: isoUtc(to)!, ...figures };
    },
  );

  app.get(
    '/api/v1/verifiers/:gatewayId',
    {
      onRequest,
      schema: {
        tags,
        summary: 'One verifier',
        security,
        params: GatewayIdParam,
        response: { 200: VerifierObject, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await verifierGet(ctx.db, principalOf(request).accountId, request.params.gatewayId);
      if (!row) throw notFound(request.params.gatewayId);
      return verifierToApi(row);
    },
  );

  app.patch(
    '/api/v1/verifiers/:gatewayId',
    {
      onRequest,
      bodyLimit: VERIFIER_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Change a verifier: the fields given replace its own; codes already sent keep their settings',
        security,
        params: GatewayIdParam,
        body: VerifierUpdate,
        response: { 200: VerifierObject, ...errorResponses(401, 403, 404, 413, 422) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { gatewayId } = request.params;
      const now = ctx.clock.now();
      const current = await verifierGet(ctx.db, principal.accountId, gatewayId);
      if (!current) throw notFound(gatewayId);
      const settings = settingsOfUpdate(current, request.body);
      await validateWorkflow(ctx, principal, settings, now);
      const row = await verifierUpdate(ctx.db, principal.accountId, gatewayId, settings, now);
      if (!row) throw notFound(gatewayId);
      return verifierToApi(row);
    },
  );

  app.delete(
    '/api/v1/verifiers/:gatewayId',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Delete a verifier; codes already sent through it can still be checked until they expire',
        security,
        params: GatewayIdParam,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await verifierDelete(ctx.db, principalOf(request).accountId, request.params.gatewayId)))
        throw notFound(request.params.gatewayId);
      return reply.status(204).send(null);
    },
  );
};
