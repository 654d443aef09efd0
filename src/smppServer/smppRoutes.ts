import { Type } from 'typebox';
import { principalOf, requireToken, tokenFindLive } from '../accounts/index.js';
import type { AppContext } from '../context.js';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { errorResponses, IdParam } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { smppBindsLiveSince } from './smppBinds.js';
import { type SmppBindRow, smppBindsList } from './smppBindSql.js';
import { issueSmppPassword } from './smppPasswords.js';

const tags = ['SMPP'];

/** A traffic token's key id, as `POST /api/v1/smpp-passwords` takes it (issued ids are 15 characters). */
const PasswordRequest = Type.Object(
  { keyId: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false, examples: [{ keyId: 't1_Qm9vYmxpa1hZ' }] },
);
const PASSWORD_BODY_LIMIT = bodyLimitFor(PasswordRequest);

const IssuedPassword = Type.Object({
  keyId: Type.String(),
  password: Type.String({ description: 'the 8-character SMPP password: shown only here; a new one replaces it' }),
});

const Bind = Type.Object({
  accountId: Type.Integer(),
  systemId: Type.String(),
  address: Type.String(),
  bindType: Type.Union([Type.Literal('transmitter'), Type.Literal('receiver'), Type.Literal('transceiver')]),
  since: Type.String(),
  window: Type.Object({
    submits: Type.Integer({ description: 'submit_sm not answered yet' }),
    delivers: Type.Integer({ description: 'deliver_sm not acknowledged yet' }),
    size: Type.Integer(),
  }),
});
const Binds = Type.Object({ items: Type.Array(Bind) });

function bindToApi(b: SmppBindRow) {
  return {
    accountId: b.account_id,
    systemId: b.system_id,
    address: b.address,
    bindType: b.bind_type,
    since: isoUtc(b.since)!,
    window: { submits: b.submits_outstanding, delivers: b.delivers_outstanding, size: b.window_size },
  };
}

/** The binds up on every api process; their window use as last refreshed (every 10 s, smppBinds.ts). */
const bindsOf = async (ctx: AppContext, accountId: number | null) => ({
  items: (await smppBindsList(ctx.db, accountId, smppBindsLiveSince(ctx.clock.now()))).map(bindToApi),
});

/** SMPP passwords (TOKEN_2 and the operator) and the list of binds (DESIGN 22). */
export const smppRoutes: Routes = (app, ctx) => {
  const system = { onRequest: requireToken(ctx, ['system']), security: [{ basicToken: [] }] };
  const admin = { onRequest: requireAdmin(ctx), security: [{ adminToken: [] }] };

  const issue = async (accountId: number, keyId: string) => {
    const token = await tokenFindLive(ctx.db, keyId, ctx.clock.now());
    if (!token || token.account_id !== accountId || token.type !== 'traffic' || token.session_id !== null) {
      throw herald('notFound', { what: `Traffic key ${keyId}` });
    }
    return { keyId, password: await issueSmppPassword(ctx, token.id, accountId) };
  };

  app.post(
    '/api/v1/smpp-passwords',
    {
      onRequest: system.onRequest,
      bodyLimit: PASSWORD_BODY_LIMIT,
      schema: {
        tags,
        summary: "Issue the 8-character SMPP password of one of the account's traffic keys (replaces the old one)",
        security: system.security,
        body: PasswordRequest,
        response: { 201: IssuedPassword, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => reply.status(201).send(await issue(principalOf(request).accountId, request.body.keyId)),
  );

  app.post(
    '/admin/v1/accounts/:id/smpp-passwords',
    {
      onRequest: admin.onRequest,
      bodyLimit: PASSWORD_BODY_LIMIT,
      schema: {
        tags,
        summary: "Issue the SMPP password of an account's traffic key (replaces the old one)",
        security: admin.security,
        params: IdParam,
        body: PasswordRequest,
        response: { 201: IssuedPassword, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => reply.status(201).send(await issue(request.params.id, request.body.keyId)),
  );

  app.get(
    '/api/v1/smpp-binds',
    {
      onRequest: system.onRequest,
      schema: {
        tags,
        summary: "The account's SMPP binds on every api process: address, bind type, since, window use",
        security: system.security,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Binds, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => bindsOf(ctx, principalOf(request).accountId),
  );

  app.get(
    '/admin/v1/smpp-binds',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'Every SMPP bind, on every api process',
        security: admin.security,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Binds, ...errorResponses(422) },
      },
    },
    async () => bindsOf(ctx, null),
  );
};
