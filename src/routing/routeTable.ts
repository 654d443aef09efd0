import { operatorKey, type Route, type RouteConnector, type RouteQuery, specificityOf } from './route.js';

/** A route with what matching needs precomputed. */
interface Compiled {
  readonly route: Route;
  readonly specificity: number;
  readonly trafficTypes: ReadonlySet<string> | null;
  readonly senderNames: ReadonlySet<string> | null;
  readonly countries: ReadonlySet<string> | null;
  readonly operators: ReadonlySet<string> | null;
}

/** Why one route wins over another: priority, then specificity, then the longer prefix, then the older route. */
interface Rank {
  readonly priority: number;
  readonly specificity: number;
  readonly prefixLength: number;
  readonly id: number;
}

/** How a compiled route ranks where it matched with a prefix of `prefixLength` (0: in its own bucket's order). */
const rankOf = (c: Compiled, prefixLength: number): Rank => ({
  priority: c.route.priority,
  id: c.route.id,
  specificity: c.specificity,
  prefixLength,
});

const better = (a: Rank, b: Rank): boolean =>
  a.priority !== b.priority
    ? a.priority > b.priority
    : a.specificity !== b.specificity
      ? a.specificity > b.specificity
      : a.prefixLength !== b.prefixLength
        ? a.prefixLength > b.prefixLength
        : a.id < b.id;

/** Buckets are keyed by channel, account (or `*`) and prefix (or empty): a route sits in one per pair it names. */
const bucketKey = (channel: string, account: number | '*', prefix: string): string => `${channel}|${account}|${prefix}`;
const lengthsKey = (channel: string, account: number | '*'): string => `${channel}|${account}`;

/**
 * The routes of DESIGN 21 indexed for a lookup per message: among the routes that match, the highest priority wins;
 * among equal priorities the most specific (more match fields given, then the longest matching prefix); then the
 * oldest. A lookup probes the buckets of the message's account and of every account, for each prefix of its
 * destination as long as a route's prefix there (at most 2 x 16 map lookups; a table of a few prefix lengths, a few),
 * and scans each bucket, kept in rank order, only to its first match: 10,000 prefix routes cost a message what one
 * does.
 */
export class RouteTable {
  static readonly EMPTY = new RouteTable([]);
  private readonly buckets = new Map<string, Compiled[]>();
  /** Per channel and account (or `*`): the prefix lengths its buckets have, longest first, the only ones to probe. */
  private readonly prefixLengths = new Map<string, number[]>();
  private readonly windows = new Set<number>();
  /** Whether a route matches operators: only then is a message's operator folded to its key (ICU, per message). */
  private readonly byOperator: boolean;
  readonly size: number;

  constructor(routes: readonly Route[]) {
    this.size = routes.length;
    for (const route of routes) {
      const m = route.match;
      if (route.quality) this.windows.add(route.quality.windowSeconds);
      const compiled: Compiled = {
        route,
        specificity: specificityOf(m),
        trafficTypes: m.trafficTypes && new Set(m.trafficTypes),
        senderNames: m.senderNames && new Set(m.senderNames),
        countries: m.countries && new Set(m.countries),
        operators: m.operators && new Set(m.operators.map(operatorKey)),
      };
      for (const account of m.accountIds ?? ['*' as const]) {
        for (const prefix of m.prefixes ?? ['']) {
          const key = bucketKey(m.channelType, account, prefix);
          const bucket = this.buckets.get(key);
          if (bucket) bucket.push(compiled);
          else this.buckets.set(key, [compiled]);
          const lengths = this.prefixLengths.get(lengthsKey(m.channelType, account));
          if (!lengths) this.prefixLengths.set(lengthsKey(m.channelType, account), [prefix.length]);
          else if (!lengths.includes(prefix.length)) lengths.push(prefix.length);
        }
      }
    }
    for (const bucket of this.buckets.values()) bucket.sort((a, b) => (better(rankOf(a, 0), rankOf(b, 0)) ? -1 : 1));
    for (const lengths of this.prefixLengths.values()) lengths.sort((a, b) => b - a);
    this.byOperator = routes.some((r) => r.match.operators);
  }

  /** The quality windows (seconds) of the routes: the delivery rates to keep. */
  qualityWindows(): ReadonlySet<number> {
    return this.windows;
  }

  /** The route a message takes, or undefined when none matches. */
  match(query: RouteQuery): Route | undefined {
    let best: { compiled: Compiled; rank: Rank } | undefined;
    const operator = query.operator === null || !this.byOperator ? null : operatorKey(query.operator);
    const longest = Math.min(query.destination.length, 15);
    for (const account of [query.accountId, '*' as const]) {
      for (const length of this.prefixLengths.get(lengthsKey(query.channel, account)) ?? []) {
        if (length > longest) continue;
        const bucket = this.buckets.get(bucketKey(query.channel, account, query.destination.slice(0, length)));
        if (!bucket) continue;
        const found = bucket.find((c) => matches(c, query, operator));
        if (!found) continue;
        const rank = rankOf(found, length);
        if (!best || better(rank, best.rank)) best = { compiled: found, rank };
      }
    }
    return best?.compiled.route;
  }
}

function matches(c: Compiled, q: RouteQuery, operator: string | null): boolean {
  return (
    (c.trafficTypes === null || c.trafficTypes.has(q.trafficType)) &&
    (c.senderNames === null || c.senderNames.has(q.senderName)) &&
    (c.countries === null || (q.country !== null && c.countries.has(q.country))) &&
    (c.operators === null || (operator !== null && c.operators.has(operator)))
  );
}

/** What the strategies need to know of a route's connectors at the moment of choosing. */
export interface ConnectorView {
  /** Up (bound, ready) and carrying the content: a message could go now. */
  readonly usable: (connectorId: string) => boolean;
  /** The delivered share of final receipts over the window, or undefined when too few came to say. */
  readonly deliveryRate: (connectorId: string, windowSeconds: number) => number | undefined;
  /** [0, 1): the weighted strategy's draw (injected, so that tests can drive it). */
  readonly random: () => number;
}

/**
 * The route's usable connectors in the order to try them, by its strategy: `ordered` as listed; `weighted` drawn by
 * weight (the first is the one the message goes by, the rest are its fallbacks in a weighted order too); `cheapest`
 * by buy price, ties in list order. With a quality floor, the connectors below it are passed over while one at or
 * above it (or one without enough receipts to say) is usable; when none is, the floor gives way rather than stop
 * the traffic, and the others are tried in the strategy's order.
 */
export function connectorOrder(route: Route, view: ConnectorView): RouteConnector[] {
  const usable = route.connectors.filter((c) => view.usable(c.connectorId));
  let chosen = usable;
  if (route.quality) {
    const { minDeliveryRate, windowSeconds } = route.quality;
    const good = usable.filter((c) => (view.deliveryRate(c.connectorId, windowSeconds) ?? 1) >= minDeliveryRate);
    if (good.length > 0) chosen = good;
  }
  switch (route.strategy) {
    case 'ordered':
      return chosen;
    case 'cheapest':
      return chosen
        .map((c, i) => ({ c, i, price: Number(c.buyPrice?.amount ?? Infinity) }))
        .sort((a, b) => a.price - b.price || a.i - b.i)
        .map((x) => x.c);
    case 'weighted':
      // Efraimidis-Spirakis: each draws u^(1/w); sorted by it, the list is a weighted draw without replacement.
      return chosen
        .map((c) => ({ c, key: Math.pow(view.random(), 1 / (c.weight ?? 1)) }))
        .sort((a, b) => b.key - a.key)
        .map((x) => x.c);
  }
}
