import { Type } from 'typebox';
import { accountGetOr404, accountsMissing } from '../accounts/index.js';
import { connectorChannel, connectorsUp } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { herald, showValue } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { ChannelType, errorResponses, Id, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { fromMicros, toMicros } from '../money/index.js';
import { lookupSubscriber, normaliseDestination } from '../numbering/index.js';
import type { Channel } from '../shared/channels.js';
import { defaultTrafficType, TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import { convertOrRefuse } from './exchange.js';
import {
  fieldsOfBody,
  fieldsPatched,
  moneyToApi,
  RouteBody,
  routeFault,
  RouteObject,
  RoutePatch,
  routeToApi,
} from './routeInput.js';
import type { RouteFields } from './route.js';
import { routeCount, routeDelete, routeGet, routeInsert, routePage, routeReorder, routeUpdate } from './routeSql.js';

/** Routes the table may hold: a lookup costs the same at any size, a reload grows with it (10,000 load in ~0.1 s). */
export const ROUTES_MAX = 100_000;

// destination and channelType are required, and checked in the handler: a schema that requires them would answer a
// misspelt parameter with "Missing destination" rather than naming it (DESIGN 12: `Invalid <parameter>` first).
const ResolveQuery = Query({
  destination: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'required' })),
  channelType: Type.Optional(ChannelType),
  accountId: Type.Optional(Id()),
  senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  trafficType: Type.Optional(Type.Enum(TRAFFIC_TYPES)),
});

const MoneyOrNull = Type.Union([Type.Number(), Type.Null()]);

const Resolved = Type.Object({
  routeId: Type.Integer(),
  connectorId: Type.Union([Type.String(), Type.Null()], {
    description: 'the connector the message would go by now; null while none of the route is up',
  }),
  operator: Type.Union([Type.String(), Type.Null()]),
  buyPrice: MoneyOrNull,
  sellPrice: MoneyOrNull,
  margin: MoneyOrNull,
  currency: Type.Union([Type.String(), Type.Null()], { description: 'of the three amounts (per part)' }),
  connectors: Type.Array(
    Type.Object({
      connectorId: Type.String(),
      up: Type.Boolean(),
      deliveryRate: Type.Union([Type.Number(), Type.Null()]),
      buyPrice: Type.Union([Type.Object({ amount: Type.Number(), currency: Type.String() }), Type.Null()]),
    }),
    { description: "the route's connectors in the order they would be tried now (the ones not up last)" },
  ),
});

/** The configured connectors' channels: what a route may name. */
export function configuredConnectors(ctx: AppContext): Map<string, Channel> {
  return new Map(ctx.configFile.connectors.map((c) => [c.id, connectorChannel(c)]));
}

/** The operator's routes (DESIGN 21): create, list, get, change, delete, reorder, and what a message would get. */
export const adminRouteRoutes: Routes = (app, ctx) => {
  // After a change, this process's book is loaded again at once (the others hear of it by the wake-up): a message
  // sent through this process right after the answer goes by the new routes.
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: routes'];
  const configured = configuredConnectors(ctx);
  const checked = (fields: RouteFields): RouteFields => {
    const fault = routeFault(fields, configured);
    if (fault) throw fault;
    return fields;
  };
  // `db`: the caller's transaction when there is one (PGlite's one connection is the transaction's until it ends).
  const accountsExist = async (db: Queryable, fields: RouteFields): Promise<void> => {
    const [missing] = await accountsMissing(db, fields.match.accountIds ?? []);
    if (missing !== undefined) throw herald('notFound', { what: `Account ${missing}` });
  };

  app.post(
    '/admin/v1/routes',
    {
      onRequest,
      bodyLimit: bodyLimitFor(RouteBody),
      schema: {
        tags,
        summary: 'Add a route: effective in every process within seconds',
        security,
        body: RouteBody,
        response: { 201: RouteObject, ...errorResponses(401, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const fields = checked(fieldsOfBody(request.body));
      await accountsExist(ctx.db, fields);
      const route = await ctx.db.transaction(async (tx) => {
        if ((await routeCount(tx)) >= ROUTES_MAX) throw herald('conflict', { reason: `At most ${ROUTES_MAX} routes` });
        return (await routeInsert(tx, [fields], ctx.clock.now()))[0]!;
      });
      await ctx.routeBook.reload(ctx.clock.now());
      return reply.status(201).send(routeToApi(route));
    },
  );

  app.get(
    '/admin/v1/routes',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Routes, highest priority first, by channel or by an account they name',
        security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          channelType: Type.Optional(ChannelType),
          accountId: Type.Optional(Id()),
        }),
        response: { 200: paginated(RouteObject), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = q.page ?? 1;
      const perPage = q.per_page ?? 100;
      const { items, total } = await routePage(
        ctx.readDb,
        { channelType: q.channelType ?? null, accountId: q.accountId ?? null },
        perPage,
        (page - 1) * perPage,
      );
      return { items: items.map(routeToApi), page, per_page: perPage, total };
    },
  );

  app.get(
    '/admin/v1/routes/resolve',
    {
      onRequest,
      schema: {
        tags,
        summary: 'What a message would get now: its route, connector, operator, buy and sell price and margin per part',
        description:
          "Amounts per part in the sale's currency (the account's tariff, else the default one); a buy price in " +
          'another currency is converted at HERALD_EXCHANGE_RATES, and refused (422) without a rate.',
        security,
        querystring: ResolveQuery,
        response: { 200: Resolved, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => resolve(ctx, request.query),
  );

  app.post(
    '/admin/v1/routes/reorder',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Give routes priorities in the order listed (the first the highest)',
        description:
          'The routes listed get priorities from `top` (default: the highest priority among them) down by one; ' +
          'routes not listed keep theirs.',
        security,
        body: Type.Object(
          {
            ids: Type.Array(Id(), { minItems: 1, maxItems: 10_000, uniqueItems: true }),
            top: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
          },
          { additionalProperties: false, examples: [{ ids: [7, 3], top: 1000 }] },
        ),
        response: { 200: Type.Object({ items: Type.Array(RouteObject) }), ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const { ids, top } = request.body;
      // The bound holds for the default top (the highest priority among them) too.
      const result = await ctx.db.transaction((tx) => routeReorder(tx, ids, top, -1_000_000, ctx.clock.now()));
      if ('missing' in result) throw herald('notFound', { what: `Route ${result.missing.join(', ')}` });
      if ('tooLow' in result)
        throw herald('unprocessable', { reason: `top: ${result.tooLow} puts the last route below -1000000` });
      await ctx.routeBook.reload(ctx.clock.now());
      return { items: result.routes.map(routeToApi) };
    },
  );

  app.get(
    '/admin/v1/routes/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'A route',
        security,
        params: IdParam,
        response: { 200: RouteObject, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const route = await routeGet(ctx.readDb, request.params.id);
      if (!route) throw herald('notFound', { what: `Route ${request.params.id}` });
      return routeToApi(route);
    },
  );

  app.patch(
    '/admin/v1/routes/:id',
    {
      onRequest,
      bodyLimit: bodyLimitFor(RoutePatch),
      schema: {
        tags,
        summary: "Change a route: fields given replace the route's; match merges field by field (null removes one)",
        security,
        params: IdParam,
        body: RoutePatch,
        response: { 200: RouteObject, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const route = await ctx.db.transaction(async (tx) => {
        const before = await routeGet(tx, request.params.id, true);
        if (!before) throw herald('notFound', { what: `Route ${request.params.id}` });
        const fields = checked(fieldsPatched(before, request.body));
        await accountsExist(tx, fields);
        return routeUpdate(tx, before.id, fields, ctx.clock.now());
      });
      await ctx.routeBook.reload(ctx.clock.now());
      return routeToApi(route!);
    },
  );

  app.delete(
    '/admin/v1/routes/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Remove a route',
        security,
        params: IdParam,
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const deleted = await ctx.db.transaction((tx) => routeDelete(tx, request.params.id));
      if (!deleted) throw herald('notFound', { what: `Route ${request.params.id}` });
      await ctx.routeBook.reload(ctx.clock.now());
      return reply.status(204).send(null);
    },
  );
};

/** GET /admin/v1/routes/resolve: the route table of this process, brought up to date, asked as the worker would. */
async function resolve(
  ctx: AppContext,
  asked: { destination?: string; channelType?: Channel; accountId?: number; senderName?: string; trafficType?: string },
) {
  if (asked.destination === undefined) throw herald('missingField', { field: 'destination' });
  if (asked.channelType === undefined) throw herald('missingField', { field: 'channelType' });
  const q = { ...asked, destination: asked.destination, channelType: asked.channelType };
  const number = normaliseDestination(q.destination);
  if (!number) throw herald('invalidField', { field: 'destination', value: showValue(q.destination) });
  const account = q.accountId === undefined ? undefined : await accountGetOr404(ctx.readDb, q.accountId);
  const now = ctx.clock.now();
  await ctx.routeBook.refresh(now);
  // The operator a message's brand would name: the portability base's for a ported number, else the plan's.
  const operator =
    (await ctx.ported.brands(ctx.readDb, [number.msisdn])).get(number.msisdn) ??
    lookupSubscriber(ctx.plan, number.msisdn, number.country ?? null).brand;
  // Up as some worker reported it (every 2 s), or as this process's own connectors are now.
  const up = await connectorsUp(ctx.readDb, now);
  for (const state of ctx.connectorStates()) if (state.available) up.add(state.id);
  const query = {
    accountId: account?.id ?? 0,
    channel: q.channelType,
    destination: number.msisdn,
    trafficType: (q.trafficType ?? defaultTrafficType(q.channelType)) as ReturnType<typeof defaultTrafficType>,
    senderName: q.senderName ?? '',
    country: number.country ?? null,
    operator,
  };
  const chosen = ctx.routeBook.choose(query, (id) => up.has(id));
  if (!chosen) throw herald('notFound', { what: `A route for ${q.channelType} to ${number.msisdn}` });
  const { route, order } = chosen;
  const via = order[0];
  await ctx.tariffs.refresh();
  const sell = ctx.tariffs.lookup(query.accountId, q.channelType, number.msisdn, query.country);
  const currency = sell?.currency ?? account?.currency ?? null;
  let buy: number | null = null;
  if (via?.buyPrice && currency) {
    buy = Number(convertOrRefuse(via.buyPrice, currency, ctx.config.exchangeRates));
  }
  const sellPrice = sell ? Number(fromMicros(toMicros(sell.perPart))) : null;
  const rest = route.connectors.filter((c) => !order.includes(c));
  return {
    routeId: route.id,
    connectorId: via?.connectorId ?? null,
    operator,
    buyPrice: buy,
    sellPrice,
    margin: buy !== null && sellPrice !== null ? Number(fromMicros(toMicros(sellPrice) - toMicros(buy))) : null,
    currency,
    connectors: [...order, ...rest].map((c) => ({
      connectorId: c.connectorId,
      up: up.has(c.connectorId),
      deliveryRate: route.quality
        ? (ctx.routeBook.deliveryRate(c.connectorId, route.quality.windowSeconds) ?? null)
        : null,
      buyPrice: c.buyPrice ? moneyToApi(c.buyPrice) : null,
    })),
  };
}
