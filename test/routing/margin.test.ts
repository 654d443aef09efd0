import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marginItems } from '../../src/routing/marginRoutes.js';
import { SIM_CONNECTOR_IDS } from '../../src/simulators/embeddedSimulators.js';
import { applyOrphanReceipts } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { messageRows } from '../helpers/messageRows.js';

const FINAL = ['delivered', 'undelivered', 'unsent'];

// DESIGN 21: the margin report sums what the messages sent were sold and bought for; checked here against the
// messages themselves, read from the database, for two accounts, two routes (one priced in another currency) and
// messages delivered, undelivered and refused.
describe.each(ENGINES)('margin report (%s)', (engine) => {
  let t: TestHerald;
  let a: TestAccount;
  let b: TestAccount;
  let routeA: number;
  let routeB: number;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 5 }, env: { HERALD_EXCHANGE_RATES: 'USD/RUB=90' } });
    a = await t.createAccount({ senderNames: [['SMS', 'Shop']], balance: 1000 });
    b = await t.createAccount({ senderNames: [['SMS', 'Shop']], balance: 1000 });
    expect(
      (await t.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', price: 2.5, currency: 'RUB' })).status,
    ).toBe(201);
    const route = async (body: unknown): Promise<number> => {
      const reply = await t.admin('POST', '/admin/v1/routes', body);
      expect(reply.status).toBe(201);
      return reply.body.id;
    };
    // Every SMS by a route priced in roubles; account b's by one priced in dollars.
    // Above the route the simulators' config seeded (priority 0, no match fields, older: it would win the tie).
    routeA = await route({
      priority: 1,
      match: { channelType: 'SMS' },
      connectors: [{ connectorId: SIM_CONNECTOR_IDS.SMS, buyPrice: { amount: 0.3, currency: 'RUB' } }],
    });
    // Of the same priority, more specific: it wins for b's messages.
    routeB = await route({
      priority: 1,
      match: { channelType: 'SMS', accountIds: [b.id] },
      connectors: [{ connectorId: SIM_CONNECTOR_IDS.SMS, buyPrice: { amount: 0.01, currency: 'USD' } }],
    });
    const long = 'Длинное сообщение '.repeat(6); // two parts in UCS-2
    // Last digit: 6 delivered, 7 undelivered, 8 refused by the carrier (unsent, refunded, never sent).
    for (const [account, destinations] of [
      [a, ['79161110016', '79161110027', '79161110038']],
      [b, ['79161110046', '79161110057']],
    ] as const) {
      ids.push(
        ...(await t.send(
          account.traffic,
          destinations.map((destination, i) => ({
            channelType: 'SMS',
            senderName: 'Shop',
            destination,
            content: i === 0 ? long : 'short',
          })),
        )),
      );
    }
    await untilWritten(t.herald, async () => {
      await applyOrphanReceipts(t.testDb.db);
      const rows = await t.testDb.db.query<{ status: string }>(
        `SELECT status FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return rows.length === ids.length && rows.every((r) => FINAL.includes(r.status));
    });
  });
  afterAll(async () => t?.close());

  /** What the messages say, summed in SQL of their own, with the buy prices converted at 90. */
  async function expected(key: string): Promise<Record<string, { parts: number; sell: number; buy: number }>> {
    const rows = await t.testDb.db.query<{ key: string; parts: number; sell: string; buy: string }>(
      `SELECT ${key} AS key, sum(total_parts)::int AS parts,
         sum(CASE WHEN price_refunded THEN 0 ELSE price END)::text AS sell,
         sum(CASE buy_currency WHEN 'USD' THEN buy_price * 90 ELSE coalesce(buy_price, 0) END)::text AS buy
       FROM ${messageRows()} WHERE id = ANY($1::uuid[]) AND connector_id IS NOT NULL GROUP BY 1`,
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.key, { parts: r.parts, sell: Number(r.sell), buy: Number(r.buy) }]));
  }
  const report = async (groupBy: string) => {
    const reply = await t.admin('GET', `/admin/v1/reports/margin?groupBy=${groupBy}&from=2020-01-01&to=2020-01-31`);
    expect(reply.status).toBe(200);
    return reply;
  };
  const around = async (groupBy: string) => {
    const now = t.clock.now().getTime();
    const from = new Date(now - 86_400_000).toISOString();
    const to = new Date(now + 86_400_000).toISOString();
    const reply = await t.admin('GET', `/admin/v1/reports/margin?groupBy=${groupBy}&from=${from}&to=${to}`);
    expect(reply.status).toBe(200);
    return reply.body.items as {
      key: string;
      currency: string;
      parts: number;
      sell: number;
      buy: number;
      margin: number;
    }[];
  };

  it('records the route and its buy price times the parts on each message sent', async () => {
    const rows = await t.testDb.db.query<{
      route_id: number;
      buy_price: string | null;
      buy_currency: string;
      total_parts: number;
      status: string;
    }>(
      `SELECT route_id::int AS route_id, buy_price::text AS buy_price, buy_currency, total_parts, status
       FROM ${messageRows()}
       WHERE id = ANY($1::uuid[]) ORDER BY destination`,
      [ids],
    );
    expect(
      rows.map((r) => [r.status, r.route_id, r.total_parts, r.buy_price && Number(r.buy_price), r.buy_currency]),
    ).toEqual([
      ['delivered', routeA, 2, 0.6, 'RUB'],
      ['undelivered', routeA, 1, 0.3, 'RUB'],
      ['unsent', null, 1, null, null],
      ['delivered', routeB, 2, 0.02, 'USD'],
      ['undelivered', routeB, 1, 0.01, 'USD'],
    ]);
  });

  it('sums by account, route, connector and day as the messages do', async () => {
    for (const [groupBy, key] of [
      ['account', 'account_id::text'],
      ['route', "coalesce(route_id::text, 'none')"],
      ['connector', 'connector_id'],
      ['day', `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`],
    ] as const) {
      const want = await expected(key);
      const items = await around(groupBy);
      expect(Object.fromEntries(items.map((i) => [i.key, { parts: i.parts, sell: i.sell, buy: i.buy }]))).toEqual(want);
      for (const i of items) {
        expect(i.currency).toBe('RUB');
        expect(i.margin).toBeCloseTo(i.sell - i.buy, 6);
      }
    }
    // By hand, account a: 3 parts sent (2 + 1; the refused one never was), sold 3 x 2.5, bought 0.6 + 0.3.
    expect((await around('account')).find((i) => i.key === String(a.id))).toMatchObject({
      parts: 3,
      sell: 7.5,
      buy: 0.9,
      margin: 6.6,
    });
    // Account b's dollars at 90: 0.03 USD = 2.7 RUB.
    expect((await around('account')).find((i) => i.key === String(b.id))).toMatchObject({ buy: 2.7 });
  });

  it('answers an empty period with no items, and refuses a period over 31 days or a bad time', async () => {
    expect((await report('day')).body).toMatchObject({ groupBy: 'day', items: [] });
    const long = await t.admin('GET', '/admin/v1/reports/margin?groupBy=day&from=2020-01-01&to=2020-03-01');
    expect(long.status).toBe(422);
    expect(long.body.error.msg).toContain('at most 31 days');
    const bad = await t.admin('GET', '/admin/v1/reports/margin?groupBy=day&from=yesterday');
    expect([bad.status, bad.body.error.msg]).toEqual([422, 'Invalid from: "yesterday"']);
    const group = await t.admin('GET', '/admin/v1/reports/margin?groupBy=week');
    expect(group.status).toBe(422);
  });
});

describe('margin items', () => {
  const row = { key: '1', currency: 'RUB', parts: 2, sell: '5.000000' };
  it('refuses a buy price in a currency without a rate, naming the pair', () => {
    expect(() => marginItems([{ ...row, buyCurrency: 'EUR', buy: '0.02' }], new Map([['USD/RUB', 90]]))).toThrow(
      'No exchange rate from EUR to RUB: set HERALD_EXCHANGE_RATES',
    );
  });
  it('converts by the inverse rate too, and counts parts without a buy price as unpriced', () => {
    const items = marginItems(
      [
        { ...row, buyCurrency: 'USD', buy: '1.800000' },
        { ...row, buyCurrency: null, buy: null },
      ],
      new Map([['RUB/USD', 0.01]]),
    );
    expect(items).toEqual([{ key: '1', currency: 'RUB', parts: 4, sell: 10, buy: 180, margin: -170, unpriced: 2 }]);
  });
});
