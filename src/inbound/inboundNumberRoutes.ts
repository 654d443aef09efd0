import { Type } from 'typebox';
import { accountGetOr404 } from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, IdParam } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { inboundNumberAssign, inboundNumberList, type InboundNumberRow } from './inboundNumberSql.js';

const InboundNumber = Type.Object({
  channelType: Type.Literal('SMS'),
  number: Type.String(),
  accountId: Type.Integer(),
  createdAt: Type.String(),
});

const toApi = (row: InboundNumberRow) => ({
  channelType: 'SMS' as const,
  number: row.number,
  accountId: Number(row.account_id),
  createdAt: isoUtc(row.created_at)!,
});

/**
 * The operator assigns numbers and short codes to accounts (DESIGN 17): an inbound SMS written to one belongs to its
 * account. One owner per number; assigning it to its owner again is harmless.
 */
export const adminInboundNumberRoutes: Routes = (app, ctx) => {
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: inbound'];

  app.post(
    '/admin/v1/accounts/:id/inbound-numbers',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Assign a number (or short code) to the account: inbound SMS written to it are its own',
        description: 'A number another account has -> 409 4091 (one owner per number).',
        security,
        params: IdParam,
        body: Type.Object(
          {
            channelType: Type.Literal('SMS'),
            // The number as the SMSC writes destination_addr: digits, or a short code.
            number: Type.String({ pattern: '^[0-9]{1,20}$' }),
          },
          { additionalProperties: false },
        ),
        response: { 201: InboundNumber, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const account = await accountGetOr404(ctx.db, request.params.id);
      const row = await inboundNumberAssign(ctx.db, {
        channelType: 'SMS',
        number: request.body.number,
        accountId: account.id,
        at: ctx.clock.now(),
      });
      if (Number(row.account_id) !== account.id) {
        throw herald('conflict', { reason: `Number ${request.body.number} belongs to another account` });
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
};
