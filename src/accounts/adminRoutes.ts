import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { Balance, errorResponses, Id, IdParam, PAGE_PARAMETERS, PageQuery, paginated, Query } from '../http/schemas.js';
import { Account, ApiKeyRequest, GuardChange, LedgerEntry, SettingsAudit, Token } from './accountSchemas.js';
import { accountGuardChange, accountSettingsAuditPage } from './accountSettingsSql.js';
import type { Routes } from '../http/server.js';
import { CHANNELS } from '../shared/channels.js';
import { accountGetOr404, accountToApi, balanceOf, createAccount, issueApiKey, tokenToApi } from './accounts.js';
import { accountCount, accountList, accountListLowFunds, accountUpdate } from './accountSql.js';
import { ledgerAppend, ledgerCount, ledgerList } from './ledgerSql.js';
import { tokenList, tokenRevoke } from './tokenSql.js';
import { isoUtc } from '../util/time.js';

const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });
// Stored as numeric(20, 6): amounts are rounded to six decimals.
const Money = Type.Number({ minimum: -1e12, maximum: 1e12 });
const Channels = Type.Partial(Type.Object(Object.fromEntries(CHANNELS.map((c) => [c, Type.Boolean()]))), {
  additionalProperties: false,
  description: 'Channel switches; WHATSAPP is off until the operator enables it',
});

/** The operator API for accounts, tokens and balances. */
export const adminAccountRoutes: Routes = (app, ctx) => {
  const admin = { onRequest: requireAdmin(ctx), security: [{ adminToken: [] }] };
  const tags = ['Operator: accounts'];
  const mustGet = (id: number) => accountGetOr404(ctx.db, id);

  app.post(
    '/admin/v1/accounts',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'Create an account with one traffic and one system token',
        security: admin.security,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            currency: Type.Optional(Currency),
            creditLimit: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
          },
          { additionalProperties: false, examples: [{ name: 'Acme Shop', currency: 'RUB' }] },
        ),
        response: {
          201: Type.Intersect([
            Account,
            Type.Object({ tokens: Type.Object({ traffic: Type.String(), system: Type.String() }) }),
          ]),
          ...errorResponses(401, 422),
        },
      },
    },
    async (request, reply) => {
      const { name, currency, creditLimit } = request.body;
      const now = ctx.clock.now();
      const created = await ctx.db.transaction((tx) =>
        createAccount(tx, { name, currency: currency ?? ctx.config.currency, creditLimit }, now),
      );
      return reply.status(201).send({ ...(await accountToApi(ctx.db, created.account)), tokens: created.tokens });
    },
  );

  app.get(
    '/admin/v1/accounts',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'List accounts (with fundsBelow: the active accounts low on funds, lowest first)',
        security: admin.security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          fundsBelow: Type.Optional(
            Type.Number({
              minimum: -1e12,
              maximum: 1e12,
              description:
                'Only active accounts whose balance in their own currency plus credit limit is below this amount ' +
                '(about to be refused with 4020), lowest first',
            }),
          ),
        }),
        response: { 200: paginated(Account), ...errorResponses(422) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const offset = (page - 1) * perPage;
      const { fundsBelow } = request.query;
      // The console's list: from the read replica (an account created a moment ago may be missing for as long).
      const { rows, total } =
        fundsBelow === undefined
          ? { rows: await accountList(ctx.readDb, perPage, offset), total: await accountCount(ctx.readDb) }
          : await accountListLowFunds(ctx.readDb, fundsBelow, perPage, offset);
      const items = await Promise.all(rows.map((row) => accountToApi(ctx.readDb, row)));
      return { items, page, per_page: perPage, total };
    },
  );

  app.get(
    '/admin/v1/accounts/:id',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'Get an account',
        security: admin.security,
        params: IdParam,
        response: { 200: Account, ...errorResponses(404) },
      },
    },
    async (request) => accountToApi(ctx.db, await mustGet(request.params.id)),
  );

  app.patch(
    '/admin/v1/accounts/:id',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary:
          'Change an account: name, status, channels, inbound, credit limit, maxRate, smppBinds, inboundVia, and its ' +
          'fraud guard and consent settings (geoPermissions, flood, dailySpendLimit, consentRequired, pumping; ' +
          'audited)',
        security: admin.security,
        params: IdParam,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('blocked')])),
            channels: Type.Optional(Channels),
            inbound: Type.Optional(Type.Boolean()),
            creditLimit: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
            maxRate: Type.Optional(
              Type.Union([Type.Number({ minimum: 0.001, maximum: 1e6 }), Type.Null()], {
                description: 'messages per second over all channels, exact across worker processes; null: no cap',
              }),
            ),
            smppBinds: Type.Optional(
              Type.Integer({ minimum: 0, maximum: 1000, description: 'SMPP binds at once (default 4); 0: none' }),
            ),
            inboundVia: Type.Optional(
              Type.Array(Type.Literal('smpp'), {
                maxItems: 1,
                uniqueItems: true,
                description: '["smpp"]: inbound SMS also go to the SMPP binds as deliver_sm; [] (default): not',
              }),
            ),
            ...GuardChange.properties,
          },
          {
            additionalProperties: false,
            examples: [{ name: 'ООО «Лавка»', creditLimit: 5000, maxRate: 50, dailySpendLimit: { RUB: 100000 } }],
          },
        ),
        response: { 200: Account, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const { name, status, channels, inbound, creditLimit, maxRate, smppBinds, inboundVia, ...settings } =
        request.body;
      const now = ctx.clock.now();
      if (Object.keys(settings).length > 0) {
        const changed = await accountGuardChange(ctx.db, request.params.id, 'operator', 'operator', settings, now);
        if (!changed) throw herald('notFound', { what: `Account ${request.params.id}` });
      }
      const row = await accountUpdate(
        ctx.db,
        request.params.id,
        { name, status, channels, inboundEnabled: inbound, creditLimit, maxRate, smppBinds, inboundVia },
        now,
      );
      if (!row) throw herald('notFound', { what: `Account ${request.params.id}` });
      return accountToApi(ctx.db, row);
    },
  );

  app.post(
    '/admin/v1/accounts/:id/tokens',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'Issue a token (traffic = TOKEN_1, system = TOKEN_2, verify = TOKEN_3); the token is shown only here',
        security: admin.security,
        params: IdParam,
        body: ApiKeyRequest,
        response: { 201: Type.Intersect([Token, Type.Object({ token: Type.String() })]), ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const account = await mustGet(request.params.id);
      const created = await ctx.db.transaction((tx) => issueApiKey(tx, account.id, request.body, ctx.clock.now()));
      return reply.status(201).send({ ...tokenToApi(created.row), token: created.token });
    },
  );

  app.get(
    '/admin/v1/accounts/:id/tokens',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: "List an account's API keys (without secrets; web session tokens are not listed)",
        security: admin.security,
        params: IdParam,
        response: { 200: Type.Object({ items: Type.Array(Token) }) },
      },
    },
    async (request) => {
      const account = await mustGet(request.params.id);
      return { items: (await tokenList(ctx.db, account.id)).map(tokenToApi) };
    },
  );

  app.delete(
    '/admin/v1/accounts/:id/tokens/:tokenId',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'Revoke a token, and end the web sessions opened with it',
        security: admin.security,
        params: Type.Object({ id: Id(), tokenId: Type.String() }),
        response: { 204: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const revoked = await tokenRevoke(ctx.db, request.params.id, request.params.tokenId, ctx.clock.now());
      if (!revoked) throw herald('notFound', { what: `Token ${request.params.tokenId}` });
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/admin/v1/accounts/:id/balance',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: 'Adjust a balance by a signed amount, recorded in the ledger',
        security: admin.security,
        params: IdParam,
        body: Type.Object(
          { currency: Currency, amount: Money, comment: Type.Optional(Type.String({ maxLength: 500 })) },
          {
            additionalProperties: false,
            examples: [{ currency: 'RUB', amount: 1000.5, comment: 'Payment of 10 March' }],
          },
        ),
        response: { 200: Balance, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const account = await mustGet(request.params.id);
      const { currency, amount, comment } = request.body;
      if (amount === 0)
        throw herald('invalidField', { field: 'amount', value: '0 (an adjustment must change the balance)' });
      await ledgerAppend(ctx.db, {
        accountId: account.id,
        currency,
        amount,
        kind: 'adjustment',
        comment: comment ?? null,
        now: ctx.clock.now(),
      });
      return balanceOf(ctx.db, account.id, account.currency);
    },
  );

  app.get(
    '/admin/v1/accounts/:id/ledger',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: "The account's ledger, newest first",
        security: admin.security,
        params: IdParam,
        querystring: PageQuery,
        response: { 200: paginated(LedgerEntry) },
      },
    },
    async (request) => {
      const account = await mustGet(request.params.id);
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const rows = await ledgerList(ctx.readDb, account.id, perPage, (page - 1) * perPage);
      return {
        items: rows.map((row) => ({
          id: row.id,
          currency: row.currency,
          amount: Number(row.amount),
          kind: row.kind,
          reference: row.reference,
          comment: row.comment,
          createdAt: isoUtc(row.created_at)!,
        })),
        page,
        per_page: perPage,
        total: await ledgerCount(ctx.readDb, account.id),
      };
    },
  );

  app.get(
    '/admin/v1/accounts/:id/settings-audit',
    {
      onRequest: admin.onRequest,
      schema: {
        tags,
        summary: "The audit of the account's guard and consent settings, newest first",
        security: admin.security,
        params: IdParam,
        querystring: PageQuery,
        response: { 200: paginated(SettingsAudit), ...errorResponses(404) },
      },
    },
    async (request) => {
      await mustGet(request.params.id);
      return accountSettingsAuditPage(ctx.db, request.params.id, request.query);
    },
  );
};
