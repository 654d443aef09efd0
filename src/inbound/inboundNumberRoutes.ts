import { Type } from 'typebox';
import { accountGetOr404 } from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, Id, IdParam } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { normaliseInboundNumber } from './inboundNumbers.js';
import {
  inboundNumberAssign,
  inboundNumberList,
  inboundNumberMove,
  inboundNumberRelease,
  type InboundNumberRow,
} from './inboundNumberSql.js';

const InboundNumber = Type.Object({
  channelType: Type.Literal('SMS'),
  number: Type.String({ description: 'as stored: a phone number in E.164 digits without `+`, or a short code' }),
  accountId: Type.Integer(),
  createdAt: Type.String({ description: 'when the account got it (assigned or moved to it)' }),
});

/** A number as the operator writes it: `+7 916 124-00-01`, `89161240001`, `79161240001` or a short code `4242`. */
const NumberText = Type.String({ minLength: 1, maxLength: 64, examples: ['79161240001', '4242'] });
const NumberParams = Type.Object({ id: Id(), number: NumberText });

const toApi = (row: InboundNumberRow) => ({
  channelType: 'SMS' as const,
  number: row.number,
  accountId: Number(row.account_id),
  createdAt: isoUtc(row.created_at)!,
});

/** The number normalised as destinations are (DESIGN 4), or 422 4220 `Invalid number: <as written>`. */
function numberOf(value: string): string {
  const number = normaliseInboundNumber(value);
  if (number === undefined) throw herald('invalidField', { field: 'number', value });
  return number;
}

/**
 * The operator assigns numbers and short codes to accounts (DESIGN 17): an inbound SMS written to one belongs to its
 * account. One owner per number; assigning it to its owner again is harmless. A number is released (DELETE) or moved
 * to another account (PATCH) by naming its owner, so that an operator never takes a number from an account by
 * mistake.
 */
export const adminInboundNumberRoutes: Routes = (app, ctx) => {
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: inbound'];
  const notOwned = (accountId: number, number: string) =>
    herald('notFound', { what: `Inbound number ${number} of account ${accountId}` });

  app.post(
    '/admin/v1/accounts/:id/inbound-numbers',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Assign a number (or short code) to the account: inbound SMS written to it are its own',
        description:
          'The number is normalised as message destinations are (`+7 916 124-00-01` and `89161240001` are ' +
          '`79161240001`); a short code is kept as written. A number another account has -> 409 4091 (one owner ' +
          'per number: move it with PATCH).',
        security,
        params: IdParam,
        body: Type.Object(
          { channelType: Type.Literal('SMS'), number: NumberText },
          { additionalProperties: false, examples: [{ channelType: 'SMS', number: '79161240001' }] },
        ),
        response: { 201: InboundNumber, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const account = await accountGetOr404(ctx.db, request.params.id);
      const number = numberOf(request.body.number);
      const row = await inboundNumberAssign(ctx.db, {
        channelType: 'SMS',
        number,
        accountId: account.id,
        at: ctx.clock.now(),
      });
      if (Number(row.account_id) !== account.id) {
        throw herald('conflict', { reason: `Number ${number} belongs to another account` });
      }
      return reply.status(201).send(toApi(row));
    },
  );

  app.get(
    '/admin/v1/accounts/:id/inbound-numbers',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's inbound numbers",
        security,
        params: IdParam,
        response: { 200: Type.Object({ items: Type.Array(InboundNumber) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const account = await accountGetOr404(ctx.db, request.params.id);
      return { items: (await inboundNumberList(ctx.db, account.id)).map(toApi) };
    },
  );

  app.delete(
    '/admin/v1/accounts/:id/inbound-numbers/:number',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Release a number of the account: inbound SMS written to it are then kept as unrouted',
        description: 'A number the account does not have -> 404 4040.',
        security,
        params: NumberParams,
        response: { 204: Type.Null(), ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const account = await accountGetOr404(ctx.db, request.params.id);
      const number = numberOf(request.params.number);
      if (!(await inboundNumberRelease(ctx.db, { channelType: 'SMS', number, accountId: account.id })))
        throw notOwned(account.id, number);
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/admin/v1/accounts/:id/inbound-numbers/:number',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Move a number of the account to another account, at once (it is never unowned meanwhile)',
        description:
          "SMS written to it from then on are the other account's; those stored before stay where they are. A " +
          'number the account does not have, or an `accountId` that names no account -> 404 4040.',
        security,
        params: NumberParams,
        body: Type.Object({ accountId: Id() }, { additionalProperties: false, examples: [{ accountId: 42 }] }),
        response: { 200: InboundNumber, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const account = await accountGetOr404(ctx.db, request.params.id);
      const number = numberOf(request.params.number);
      const target = await accountGetOr404(ctx.db, request.body.accountId);
      const row = await inboundNumberMove(ctx.db, {
        channelType: 'SMS',
        number,
        fromAccountId: account.id,
        toAccountId: target.id,
        at: ctx.clock.now(),
      });
      if (!row) throw notOwned(account.id, number);
      return toApi(row);
    },
  );
};
