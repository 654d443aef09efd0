import { Type } from 'typebox';
import { accountGetOr404 } from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { ChannelType, errorResponses, Id, IdParam, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { type TariffRow, tariffDelete, tariffInsert, tariffList } from './tariffSql.js';

const Tariff = Type.Object({
  id: Type.Integer(),
  accountId: Type.Union([Type.Integer(), Type.Null()]),
  channelType: Type.String(),
  prefix: Type.Union([Type.String(), Type.Null()]),
  country: Type.Union([Type.String(), Type.Null()]),
  price: Type.Number(),
  currency: Type.String(),
  source: Type.String(),
  createdAt: Type.String(),
});

function tariffToApi(row: TariffRow) {
  return {
    id: row.id,
    accountId: row.account_id,
    channelType: row.channel_type,
    prefix: row.prefix,
    country: row.country,
    price: Number(row.price),
    currency: row.currency,
    source: row.source,
    createdAt: isoUtc(row.created_at)!,
  };
}

/** The operator's tariffs: price per part by channel and prefix or country, per account or default. */
export const adminTariffRoutes: Routes = (app, ctx) => {
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: tariffs'];

  app.post(
    '/admin/v1/tariffs',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Add a tariff (without accountId: the default for every account)',
        security,
        body: Type.Object(
          {
            accountId: Type.Optional(Id()),
            channelType: ChannelType,
            prefix: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
            country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
            price: Type.Number({ minimum: 0, maximum: 1e9 }),
            currency: Type.String({ pattern: '^[A-Z]{3}$' }),
          },
          {
            additionalProperties: false,
            examples: [{ channelType: 'SMS', prefix: '7916', price: 0.5, currency: 'RUB' }],
          },
        ),
        response: { 201: Tariff, ...errorResponses(401, 404, 422) },
      },
    },
    async (request, reply) => {
      const { accountId, channelType, prefix, country, price, currency } = request.body;
      if (prefix && country) throw herald('unprocessable', { reason: 'A tariff has a prefix or a country, not both' });
      if (accountId !== undefined) await accountGetOr404(ctx.db, accountId);
      const row = await tariffInsert(ctx.db, {
        accountId: accountId ?? null,
        channelType,
        prefix: prefix ?? null,
        country: country ?? null,
        price,
        currency,
        source: 'api',
        now: ctx.clock.now(),
      });
      ctx.tariffs.invalidate();
      return reply.status(201).send(tariffToApi(row));
    },
  );

  app.get(
    '/admin/v1/tariffs',
    {
      onRequest,
      schema: {
        tags,
        summary: "List tariffs (with accountId: that account's and the defaults)",
        security,
        querystring: Query({ accountId: Type.Optional(Id()) }),
        response: { 200: Type.Object({ items: Type.Array(Tariff) }) },
      },
    },
    async (request) => ({ items: (await tariffList(ctx.db, { accountId: request.query.accountId })).map(tariffToApi) }),
  );

  app.delete(
    '/admin/v1/tariffs/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Remove a tariff',
        security,
        params: IdParam,
        response: { 204: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      if (!(await tariffDelete(ctx.db, request.params.id)))
        throw herald('notFound', { what: `Tariff ${request.params.id}` });
      ctx.tariffs.invalidate();
      return reply.status(204).send(null);
    },
  );
};
