import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from './principal.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { ApiKeyRequest, Token } from './accountSchemas.js';
import { accountUserLock } from './accountUserSql.js';
import { issueApiKey, tokenToApi } from './accounts.js';
import { tokenList, tokenRevokeApiKey } from './tokenSql.js';

/**
 * The client's own API keys (TOKEN_2): list, issue, revoke. Session tokens of web sign-ins are not API keys. A key
 * issued with a token that descends from a user (a sign-in's token, or a key that user made) descends from that user
 * too, and is revoked when the user is deleted or the operator resets their password (docs/security.md).
 */
export const apiKeyRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['API keys'];

  app.get(
    '/api/v1/api-keys',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's API keys, revoked ones included (never their secrets)",
        security,
        response: { 200: Type.Object({ items: Type.Array(Token) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: (await tokenList(ctx.db, principalOf(request).accountId)).map(tokenToApi) }),
  );

  app.post(
    '/api/v1/api-keys',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Issue an API key (traffic = TOKEN_1, system = TOKEN_2, verify = TOKEN_3); shown only here',
        security,
        body: ApiKeyRequest,
        response: {
          201: Type.Object({ id: Type.String(), type: Type.String(), token: Type.String(), createdAt: Type.String() }),
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const maker = { userId: principal.createdByUser, sessionId: principal.sessionId };
      const created = await ctx.db.transaction(async (tx) => {
        // Holding the user until the key is written: deleting them meanwhile waits for it, then revokes it too; a
        // user deleted since this request was authenticated has no live tokens left, so its answer is theirs.
        if (maker.userId !== null && !(await accountUserLock(tx, maker.userId))) throw herald('badCredentials');
        return issueApiKey(tx, principal.accountId, request.body, ctx.clock.now(), maker);
      });
      return reply.status(201).send({
        id: created.row.id,
        type: created.row.type,
        token: created.token,
        createdAt: isoUtc(created.row.created_at)!,
      });
    },
  );

  app.delete(
    '/api/v1/api-keys/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Revoke an API key, and end the web sessions opened with it',
        description: '404 when it is not a live API key of this account; 409 4093 for the key making the request.',
        security,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      if (id === principal.tokenId) throw herald('keyInUse');
      if (!(await tokenRevokeApiKey(ctx.db, principal.accountId, id, ctx.clock.now())))
        throw herald('notFound', { what: `API key ${id}` });
      return reply.status(204).send(null);
    },
  );
};
