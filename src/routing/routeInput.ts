import { Type, type Static } from 'typebox';
import { herald, type HeraldError } from '../errors/catalogue.js';
import { ChannelType, Id } from '../http/schemas.js';
import { fromMicros, toMicros } from '../money/index.js';
import type { RouteConfig } from '../connectors/index.js';
import type { Channel } from '../shared/channels.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import {
  MATCH_FIELDS,
  matchOf,
  type Money,
  type Route,
  type RouteConnector,
  type RouteFields,
  type RouteMatch,
  ROUTE_STRATEGIES,
} from './route.js';

/*
 * The routes API's bodies (DESIGN 21): their schemas, the checks a schema cannot make (connectors configured for the
 * route's channel, one currency for `cheapest`, a second connector to reroute to), and the route as answered.
 */

/** Connectors one route may name. */
export const ROUTE_CONNECTORS_MAX = 16;
/** Prefixes one route may name (a country's ranges: the largest plans have a few thousand). */
export const ROUTE_PREFIXES_MAX = 10_000;
/** Entries of a route's other match lists. */
const MATCH_LIST_MAX = 1000;

const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, maxItems = MATCH_LIST_MAX) =>
  Type.Array(item, { minItems: 1, maxItems, uniqueItems: true });

const matchLists = {
  accountIds: list(Id()),
  trafficTypes: list(Type.Enum(TRAFFIC_TYPES), TRAFFIC_TYPES.length),
  senderNames: list(Type.String({ minLength: 1, maxLength: 64 })),
  prefixes: list(Type.String({ pattern: '^[0-9]{1,15}$' }), ROUTE_PREFIXES_MAX),
  countries: list(Type.String({ pattern: '^[A-Z]{2}$' })),
  operators: list(Type.String({ minLength: 1, maxLength: 100 })),
};

const MoneyBody = Type.Object(
  {
    amount: Type.Number({ minimum: 0, maximum: 1_000_000, description: 'per part sent' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  },
  { additionalProperties: false },
);

const ConnectorBody = Type.Object(
  {
    connectorId: Type.String({ minLength: 1, maxLength: 100 }),
    weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: '`weighted`: its share (1)' })),
    buyPrice: Type.Optional(MoneyBody),
  },
  { additionalProperties: false },
);

const RerouteBody = Type.Object(
  {
    errorCodes: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0, maximum: 99_999 }), {
        maxItems: 100,
        uniqueItems: true,
        description:
          "error codes of a refusal at submission (SMPP command_status, a provider's code) or of an undelivered or " +
          'unsent receipt',
      }),
    ),
    onUndelivered: Type.Optional(
      Type.Boolean({ description: 'any undelivered receipt reroutes too (false when not given)' }),
    ),
    max: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: '1 when not given' })),
  },
  { additionalProperties: false },
);

const QualityBody = Type.Object(
  {
    minDeliveryRate: Type.Number({ minimum: 0, maximum: 1 }),
    windowSeconds: Type.Integer({ minimum: 60, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

const Priority = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 });

export const RouteBody = Type.Object(
  {
    priority: Type.Optional(Priority),
    match: Type.Object({ channelType: ChannelType, ...mapOptional(matchLists) }, { additionalProperties: false }),
    connectors: Type.Array(ConnectorBody, { minItems: 1, maxItems: ROUTE_CONNECTORS_MAX }),
    strategy: Type.Optional(Type.Enum(ROUTE_STRATEGIES, { description: 'ordered when not given' })),
    reroute: Type.Optional(Type.Union([RerouteBody, Type.Null()])),
    quality: Type.Optional(Type.Union([QualityBody, Type.Null()])),
  },
  {
    additionalProperties: false,
    examples: [
      {
        priority: 100,
        match: { channelType: 'SMS', prefixes: ['7916', '7915'], trafficTypes: ['AUTHORIZE', 'TRANSACT'] },
        connectors: [{ connectorId: 'sim-smsc', buyPrice: { amount: 0.35, currency: 'RUB' } }],
        strategy: 'ordered',
      },
    ],
  },
);

/** A PATCH: the fields given replace the route's; `match` merges field by field, null removing one (RFC 7386). */
export const RoutePatch = Type.Object(
  {
    priority: Type.Optional(Priority),
    match: Type.Optional(
      Type.Object(
        {
          channelType: Type.Optional(ChannelType),
          ...Object.fromEntries(
            Object.entries(matchLists).map(([k, v]) => [k, Type.Optional(Type.Union([v, Type.Null()]))]),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    connectors: Type.Optional(Type.Array(ConnectorBody, { minItems: 1, maxItems: ROUTE_CONNECTORS_MAX })),
    strategy: Type.Optional(Type.Enum(ROUTE_STRATEGIES)),
    reroute: Type.Optional(Type.Union([RerouteBody, Type.Null()])),
    quality: Type.Optional(Type.Union([QualityBody, Type.Null()])),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ priority: 50, match: { prefixes: ['7903', '7905'] } }],
  },
);

function mapOptional<T extends Record<string, Parameters<typeof Type.Optional>[0]>>(lists: T) {
  return Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>>;
  };
}

type Body = Static<typeof RouteBody>;
type Patch = Static<typeof RoutePatch>;

const MoneyObject = Type.Object({ amount: Type.Number(), currency: Type.String() });

export const RouteObject = Type.Object({
  id: Type.Integer(),
  priority: Type.Integer(),
  match: Type.Object({
    channelType: Type.String(),
    ...Object.fromEntries(
      MATCH_FIELDS.map((f) => [f, Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()])))]),
    ),
  }),
  connectors: Type.Array(
    Type.Object({
      connectorId: Type.String(),
      weight: Type.Optional(Type.Integer()),
      buyPrice: Type.Optional(MoneyObject),
    }),
  ),
  strategy: Type.String(),
  reroute: Type.Union([
    Type.Object({ errorCodes: Type.Array(Type.Integer()), onUndelivered: Type.Boolean(), max: Type.Integer() }),
    Type.Null(),
  ]),
  quality: Type.Union([Type.Object({ minDeliveryRate: Type.Number(), windowSeconds: Type.Integer() }), Type.Null()]),
  createdTime: Type.String(),
  updatedTime: Type.String(),
});

/** A route as the API answers it: match fields not given are left out. */
export function routeToApi(route: Route) {
  const match: Record<string, unknown> = { channelType: route.match.channelType };
  for (const field of MATCH_FIELDS) if (route.match[field] !== null) match[field] = route.match[field];
  return {
    id: route.id,
    priority: route.priority,
    match: match as { channelType: string },
    connectors: route.connectors.map((c) => ({
      connectorId: c.connectorId,
      ...(c.weight === null ? {} : { weight: c.weight }),
      ...(c.buyPrice === null ? {} : { buyPrice: moneyToApi(c.buyPrice) }),
    })),
    strategy: route.strategy,
    reroute: route.reroute && { ...route.reroute, errorCodes: [...route.reroute.errorCodes] },
    quality: route.quality,
    createdTime: route.createdAt.toISOString(),
    updatedTime: route.updatedAt.toISOString(),
  };
}

export const moneyToApi = (m: Money) => ({ amount: Number(m.amount), currency: m.currency });

/** The route's fields from a POST body, with the defaults. */
export function fieldsOfBody(body: Body): RouteFields {
  return {
    priority: body.priority ?? 0,
    match: matchOf(body.match),
    connectors: body.connectors.map(connectorOf),
    strategy: body.strategy ?? 'ordered',
    reroute: rerouteOf(body.reroute),
    quality: body.quality ?? null,
  };
}

/** A route's fields after a PATCH. */
export function fieldsPatched(route: Route, patch: Patch): RouteFields {
  const match: Record<string, unknown> = { ...route.match };
  for (const [field, value] of Object.entries(patch.match ?? {})) if (value !== undefined) match[field] = value;
  return {
    priority: patch.priority ?? route.priority,
    match: match as unknown as RouteMatch,
    connectors: patch.connectors ? patch.connectors.map(connectorOf) : route.connectors,
    strategy: patch.strategy ?? route.strategy,
    reroute: patch.reroute === undefined ? route.reroute : rerouteOf(patch.reroute),
    quality: patch.quality === undefined ? route.quality : patch.quality,
  };
}

function connectorOf(c: Body['connectors'][number]): RouteConnector {
  return {
    connectorId: c.connectorId,
    weight: c.weight ?? null,
    buyPrice: c.buyPrice ? { amount: fromMicros(toMicros(c.buyPrice.amount)), currency: c.buyPrice.currency } : null,
  };
}

function rerouteOf(r: Body['reroute']): RouteFields['reroute'] {
  if (!r) return null;
  return { errorCodes: r.errorCodes ?? [], onUndelivered: r.onUndelivered ?? false, max: r.max ?? 1 };
}

/**
 * What a schema cannot check of a route: each connector configured and carrying the route's channel, named once;
 * weights only for `weighted`; a buy price on every connector of a `cheapest` route, all in one currency; a reroute
 * with somewhere to go and something to go on. The first fault, or undefined.
 */
export function routeFault(fields: RouteFields, configured: ReadonlyMap<string, Channel>): HeraldError | undefined {
  const fault = (reason: string) => herald('unprocessable', { reason });
  const seen = new Set<string>();
  for (const [i, c] of fields.connectors.entries()) {
    const channel = configured.get(c.connectorId);
    if (channel === undefined) return fault(`connectors.${i}.connectorId: no connector ${c.connectorId} is configured`);
    if (channel !== fields.match.channelType)
      return fault(`connectors.${i}.connectorId: ${c.connectorId} carries ${channel}, not ${fields.match.channelType}`);
    if (seen.has(c.connectorId)) return fault(`connectors.${i}.connectorId: ${c.connectorId} is named twice`);
    seen.add(c.connectorId);
    if (c.weight !== null && fields.strategy !== 'weighted')
      return fault(`connectors.${i}.weight: weights are for the weighted strategy, the route's is ${fields.strategy}`);
  }
  if (fields.strategy === 'cheapest') {
    const missing = fields.connectors.findIndex((c) => c.buyPrice === null);
    if (missing >= 0)
      return fault(`connectors.${missing}.buyPrice: the cheapest strategy needs every connector's price`);
    const currencies = new Set(fields.connectors.map((c) => c.buyPrice!.currency));
    if (currencies.size > 1)
      return fault(
        `connectors: the cheapest strategy compares prices in one currency, got ${[...currencies].join(', ')}`,
      );
  }
  if (fields.reroute) {
    if (fields.connectors.length < 2) return fault('reroute: a route needs a second connector to reroute to');
    if (fields.reroute.errorCodes.length === 0 && !fields.reroute.onUndelivered)
      return fault('reroute: give errorCodes, onUndelivered: true, or both');
  }
  return undefined;
}

/** HERALD_CONFIG's routes as the table's (DESIGN 8's shape): the connectors in order, a prefix list or none. */
export function routesOfConfig(routes: readonly RouteConfig[]): RouteFields[] {
  return routes.map((r) => ({
    priority: 0,
    match: matchOf({ channelType: r.channel, prefixes: r.prefixes.length > 0 ? [...new Set(r.prefixes)] : null }),
    connectors: r.connectors.map((connectorId) => ({ connectorId, weight: null, buyPrice: null })),
    strategy: 'ordered',
    reroute: null,
    quality: null,
  }));
}
