import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Route, RouteConnector, RouteFields, RouteQuery } from '../../src/routing/index.js';
import { specificityOf } from '../../src/routing/route.js';
import { type ConnectorView, connectorOrder, RouteTable } from '../../src/routing/routeTable.js';
import { routeFields } from '../factories/routes.js';

/** A stored SMS route: `match` fields given replace the factory's nulls. */
function route(
  id: number,
  connectors: readonly string[],
  more: Omit<Partial<RouteFields>, 'match'> & { match?: Partial<RouteFields['match']> } = {},
): Route {
  const base = routeFields('SMS', connectors);
  const { match, ...rest } = more;
  return { ...base, ...rest, match: { ...base.match, ...match }, id, createdAt: new Date(0), updatedAt: new Date(0) };
}

const query = (more: Partial<RouteQuery> = {}): RouteQuery => ({
  accountId: 1,
  channel: 'SMS',
  destination: '79161234567',
  trafficType: 'SERVICE',
  senderName: 'Shop',
  country: 'RU',
  operator: 'МТС',
  ...more,
});

const matched = (routes: Route[], q: Partial<RouteQuery> = {}): number | undefined =>
  new RouteTable(routes).match(query(q))?.id;

describe('RouteTable.match', () => {
  it('takes the highest priority before any specificity', () => {
    const general = route(1, ['a'], { priority: 10 });
    const specific = route(2, ['b'], { match: { prefixes: ['79161'], countries: ['RU'], operators: ['МТС'] } });
    expect(matched([specific, general])).toBe(1);
    expect(matched([{ ...specific, priority: 11 }, general])).toBe(2);
  });

  it('among equal priorities takes the route with more match fields, even with a shorter prefix', () => {
    const longPrefix = route(1, ['a'], { match: { prefixes: ['7916123'] } });
    const twoFields = route(2, ['b'], { match: { prefixes: ['7'], countries: ['RU'] } });
    expect(matched([longPrefix, twoFields])).toBe(2);
    // Without a prefix at all: two fields still beat one.
    const noPrefix = route(3, ['b'], { match: { countries: ['RU'], trafficTypes: ['SERVICE'] } });
    expect(matched([longPrefix, noPrefix])).toBe(3);
  });

  it('among equally specific routes takes the longest matching prefix, then the lower id', () => {
    const short = route(1, ['a'], { match: { prefixes: ['7'] } });
    const long = route(2, ['b'], { match: { prefixes: ['7916'] } });
    expect(matched([short, long])).toBe(2);
    // A route's prefix that does not match the destination does not count for it.
    const manyPrefixes = route(3, ['b'], { match: { prefixes: ['79161234', '791'] } });
    expect(matched([long, manyPrefixes], { destination: '79169999999' })).toBe(2);
    expect(matched([long, manyPrefixes], { destination: '79161234000' })).toBe(3);
    // Equal in everything: the lower id, whatever the order given.
    const twin5 = route(5, ['a'], { match: { prefixes: ['7916'] } });
    const twin3 = route(3, ['b'], { match: { prefixes: ['7916'] } });
    expect(matched([twin5, twin3])).toBe(3);
    expect(matched([twin3, twin5])).toBe(3);
    const general7 = route(7, ['a']);
    const general4 = route(4, ['b']);
    expect(matched([general7, general4])).toBe(4);
  });

  it("matches an account's route only for its accounts", () => {
    const general = route(1, ['a']);
    const mine = route(2, ['b'], { match: { accountIds: [1, 3] } });
    expect(matched([general, mine], { accountId: 1 })).toBe(2);
    expect(matched([general, mine], { accountId: 3 })).toBe(2);
    expect(matched([general, mine], { accountId: 2 })).toBe(1);
    expect(matched([mine], { accountId: 2 })).toBeUndefined();
  });

  it('filters by traffic type, sender name, country and operator (operators without regard to case)', () => {
    const byTraffic = route(1, ['a'], { match: { trafficTypes: ['PROMO', 'TRANSACT'] } });
    expect(matched([byTraffic], { trafficType: 'PROMO' })).toBe(1);
    expect(matched([byTraffic], { trafficType: 'SERVICE' })).toBeUndefined();

    const bySender = route(2, ['a'], { match: { senderNames: ['Shop'] } });
    expect(matched([bySender], { senderName: 'Shop' })).toBe(2);
    expect(matched([bySender], { senderName: 'Other' })).toBeUndefined();

    const byCountry = route(3, ['a'], { match: { countries: ['RU', 'BY'] } });
    expect(matched([byCountry], { country: 'BY' })).toBe(3);
    expect(matched([byCountry], { country: 'KZ' })).toBeUndefined();
    expect(matched([byCountry], { country: null })).toBeUndefined();

    const byOperator = route(4, ['a'], { match: { operators: ['мтс', 'BeeLine'] } });
    expect(matched([byOperator], { operator: 'МТС' })).toBe(4);
    expect(matched([byOperator], { operator: 'Мтс' })).toBe(4);
    expect(matched([byOperator], { operator: 'beeline' })).toBe(4);
    expect(matched([byOperator], { operator: 'МегаФон' })).toBeUndefined();
    expect(matched([byOperator], { operator: null })).toBeUndefined();

    // Every field given must match.
    const all = route(5, ['a'], { match: { trafficTypes: ['SERVICE'], senderNames: ['Shop'], countries: ['RU'] } });
    expect(matched([all])).toBe(5);
    expect(matched([all], { senderName: 'Other' })).toBeUndefined();
  });

  it('takes the route a plain filter and rank of every route takes, over mixed prefix lengths and accounts', () => {
    // The table probes only the prefix lengths its routes have: it must agree with trying every route.
    const prefix = fc.constantFrom('7', '79', '791', '7916', '79161', '7916123', '79161234567', '8', '7917');
    const arbitraryRoute = fc.record({
      priority: fc.integer({ min: 0, max: 2 }),
      prefixes: fc.option(fc.uniqueArray(prefix, { minLength: 1, maxLength: 3 }), { nil: null }),
      accountIds: fc.option(fc.constantFrom([1], [2], [1, 2]), { nil: null }),
      countries: fc.option(fc.constant(['RU']), { nil: null }),
    });
    const destination = fc.constantFrom('79161234567', '79171234567', '79991234567', '89161234567', '7916');
    fc.assert(
      fc.property(
        fc.array(arbitraryRoute, { maxLength: 12 }),
        destination,
        fc.constantFrom(1, 2, 3),
        (specs, to, acc) => {
          const routes = specs.map((m, i) =>
            route(i + 1, ['a'], {
              priority: m.priority,
              match: { prefixes: m.prefixes, accountIds: m.accountIds, countries: m.countries },
            }),
          );
          const q = query({ destination: to, accountId: acc });
          const candidates = routes.flatMap((r) => {
            if (r.match.accountIds && !r.match.accountIds.includes(acc)) return [];
            if (r.match.countries && !r.match.countries.includes('RU')) return [];
            const lengths = (r.match.prefixes ?? ['']).filter((p) => to.startsWith(p) && p.length <= 15);
            if (lengths.length === 0) return [];
            return [{ r, length: Math.max(...lengths.map((p) => p.length)) }];
          });
          candidates.sort(
            (a, b) =>
              b.r.priority - a.r.priority ||
              specificityOf(b.r.match) - specificityOf(a.r.match) ||
              b.length - a.length ||
              a.r.id - b.r.id,
          );
          expect(new RouteTable(routes).match(q)?.id).toBe(candidates[0]?.r.id);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers undefined when no route matches', () => {
    expect(RouteTable.EMPTY.match(query())).toBeUndefined();
    expect(matched([route(1, ['a'], { match: { prefixes: ['7495'] } })])).toBeUndefined();
    // Another channel's route does not match.
    expect(matched([{ ...route(2, ['a']), match: { ...route(2, ['a']).match, channelType: 'VIBER' } }])).toBe(
      undefined,
    );
  });
});

const connector = (connectorId: string, more: Partial<RouteConnector> = {}): RouteConnector => ({
  connectorId,
  weight: null,
  buyPrice: null,
  ...more,
});

const withConnectors = (connectors: RouteConnector[], more: Partial<Route> = {}): Route => ({
  ...route(1, []),
  connectors,
  ...more,
});

const view = (more: Partial<ConnectorView> = {}): ConnectorView => ({
  usable: () => true,
  deliveryRate: () => undefined,
  random: () => 0.5,
  ...more,
});

const ids = (order: RouteConnector[]): string[] => order.map((c) => c.connectorId);

/** mulberry32: a small seeded PRNG, so that the draws are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('connectorOrder', () => {
  it('ordered: the listed order, passing over the connectors that are not usable', () => {
    const r = withConnectors([connector('a'), connector('b'), connector('c')]);
    expect(ids(connectorOrder(r, view()))).toEqual(['a', 'b', 'c']);
    expect(ids(connectorOrder(r, view({ usable: (id) => id !== 'a' })))).toEqual(['b', 'c']);
    expect(ids(connectorOrder(r, view({ usable: (id) => id !== 'b' })))).toEqual(['a', 'c']);
    expect(ids(connectorOrder(r, view({ usable: () => false })))).toEqual([]);
  });

  it('cheapest: by buy price, ties in list order', () => {
    const price = (amount: string) => ({ buyPrice: { amount, currency: 'RUB' } });
    const r = withConnectors(
      [
        connector('a', price('0.500000')),
        connector('b', price('0.300000')),
        connector('c', price('0.500000')),
        connector('d', price('0.300000')),
        connector('e', price('0.100000')),
      ],
      { strategy: 'cheapest' },
    );
    expect(ids(connectorOrder(r, view()))).toEqual(['e', 'b', 'd', 'a', 'c']);
    expect(ids(connectorOrder(r, view({ usable: (id) => id !== 'e' })))).toEqual(['b', 'd', 'a', 'c']);
  });

  it('weighted: the injected draw decides the first pick', () => {
    const r = withConnectors([connector('a', { weight: 1 }), connector('b', { weight: 3 })], { strategy: 'weighted' });
    const draws = (values: number[]) => {
      const rest = [...values];
      return () => rest.shift()!;
    };
    // Keys u^(1/w): a 0.5, b 0.5^(1/3) = 0.79: b first.
    expect(ids(connectorOrder(r, view({ random: draws([0.5, 0.5]) })))).toEqual(['b', 'a']);
    // a 0.9, b 0.1^(1/3) = 0.46: a first.
    expect(ids(connectorOrder(r, view({ random: draws([0.9, 0.1]) })))).toEqual(['a', 'b']);
    // A connector that is not usable is not drawn.
    expect(ids(connectorOrder(r, view({ usable: (id) => id === 'a', random: draws([0.1]) })))).toEqual(['a']);
  });

  it('weighted: over many draws each connector goes first about its share of the weights', () => {
    const r = withConnectors(
      [connector('a', { weight: 1 }), connector('b', { weight: 2 }), connector('c', { weight: 7 }), connector('d')],
      { strategy: 'weighted' },
    );
    const random = seeded(20260310);
    const firsts = new Map<string, number>();
    const draws = 20_000;
    for (let i = 0; i < draws; i++) {
      const first = connectorOrder(r, view({ random }))[0]!.connectorId;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    // Weights 1, 2, 7 and 1 (not given): shares 1/11, 2/11, 7/11, 1/11. The standard error is under 0.004 at 20,000
    // draws: 0.02 is five of them.
    for (const [id, weight] of [
      ['a', 1],
      ['b', 2],
      ['c', 7],
      ['d', 1],
    ] as const) {
      expect(Math.abs((firsts.get(id) ?? 0) / draws - weight / 11)).toBeLessThan(0.02);
    }
  });

  it('quality floor: passes over one below it, keeps one of unknown rate, gives way when none meets it', () => {
    const quality = { minDeliveryRate: 0.8, windowSeconds: 3600 };
    const r = withConnectors([connector('a'), connector('b'), connector('c')], { quality });
    const asked: [string, number][] = [];
    const rates = (table: Record<string, number | undefined>) => (id: string, window: number) => {
      asked.push([id, window]);
      return table[id];
    };
    expect(ids(connectorOrder(r, view({ deliveryRate: rates({ a: 0.5, b: undefined, c: 0.9 }) })))).toEqual(['b', 'c']);
    expect(asked).toContainEqual(['a', 3600]);
    // At the floor is enough.
    expect(ids(connectorOrder(r, view({ deliveryRate: rates({ a: 0.8, b: 0.79, c: 0.1 }) })))).toEqual(['a']);
    // None meets it: the floor gives way, in the strategy's order.
    expect(ids(connectorOrder(r, view({ deliveryRate: rates({ a: 0.5, b: 0.6, c: 0.7 }) })))).toEqual(['a', 'b', 'c']);
    // The good one is not usable: the floor gives way to the usable ones.
    expect(
      ids(connectorOrder(r, view({ usable: (id) => id !== 'c', deliveryRate: rates({ a: 0.5, b: 0.6, c: 0.95 }) }))),
    ).toEqual(['a', 'b']);
    // With cheapest, the floor first, then the prices.
    const price = (amount: string) => ({ buyPrice: { amount, currency: 'RUB' } });
    const cheap = withConnectors(
      [connector('a', price('0.1')), connector('b', price('0.3')), connector('c', price('0.2'))],
      { strategy: 'cheapest', quality },
    );
    expect(ids(connectorOrder(cheap, view({ deliveryRate: rates({ a: 0.5, b: 0.9, c: 0.85 }) })))).toEqual(['c', 'b']);
  });
});
