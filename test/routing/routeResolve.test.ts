import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import type { TestAccount } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { startRoutingHerald, type RoutingHerald } from './routingHerald.js';

/*
 * GET /admin/v1/routes/resolve: what a message would get now. The connectors a route may use are those some worker
 * reports up (connector_status, written every 2 s): each test waits, bounded, until `a` and `b` are reported up.
 */

const resolvePath = (q: Record<string, string | number>) => {
  const params = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]));
  return `/admin/v1/routes/resolve?${params}`;
};

async function setUp(h: RoutingHerald): Promise<TestAccount> {
  const account = await h.createAccount();
  const tariff = await h.admin('POST', '/admin/v1/tariffs', {
    accountId: account.id,
    channelType: 'SMS',
    prefix: '7916',
    price: 2.5,
    currency: 'RUB',
  });
  expect(tariff.status, JSON.stringify(tariff.body)).toBe(201);
  // A route to the account's 79163... numbers whose only price is in dollars.
  const usd = await h.admin('POST', '/admin/v1/routes', {
    priority: 10,
    match: { channelType: 'SMS', accountIds: [account.id], prefixes: ['79163'] },
    connectors: [{ connectorId: 'a', buyPrice: { amount: 0.005, currency: 'USD' } }],
  });
  expect(usd.status, JSON.stringify(usd.body)).toBe(201);
  // The connectors are reported up once the status writer has run after they bound.
  await waitFor(
    async () => {
      const up = await h.testDb.db.query<{ connector_id: string }>(
        'SELECT connector_id FROM connector_status WHERE available',
      );
      const ids = new Set(up.map((r) => r.connector_id));
      return ids.has('a') && ids.has('b');
    },
    { timeoutMs: 10_000 },
  );
  return account;
}

describe.each(ENGINES)('route resolve (%s)', (engine) => {
  let h: RoutingHerald;
  let account: TestAccount;

  beforeAll(async () => {
    h = await startRoutingHerald(engine);
    account = await setUp(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const resolve = (q: Record<string, string | number>) => h.admin('GET', resolvePath(q));

  it("answers the route, its first usable connector, the number's operator and the prices per part", async () => {
    const route = await h.admin('POST', '/admin/v1/routes', {
      priority: 10,
      match: { channelType: 'SMS', accountIds: [account.id], prefixes: ['79161'] },
      connectors: [
        { connectorId: 'dead', buyPrice: { amount: 0.1, currency: 'RUB' } },
        { connectorId: 'b', buyPrice: { amount: 0.35, currency: 'RUB' } },
        { connectorId: 'a', buyPrice: { amount: 0.2, currency: 'RUB' } },
      ],
    });
    expect(route.status).toBe(201);
    const reply = await resolve({ destination: '+7 916 123-45-67', channelType: 'SMS', accountId: account.id });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({
      routeId: route.body.id,
      // `dead` comes first in the list but is not up.
      connectorId: 'b',
      operator: 'МТС',
      buyPrice: 0.35,
      sellPrice: 2.5,
      margin: 2.15,
      currency: 'RUB',
      connectors: [
        { connectorId: 'b', up: true, deliveryRate: null, buyPrice: { amount: 0.35, currency: 'RUB' } },
        { connectorId: 'a', up: true, deliveryRate: null, buyPrice: { amount: 0.2, currency: 'RUB' } },
        { connectorId: 'dead', up: false, deliveryRate: null, buyPrice: { amount: 0.1, currency: 'RUB' } },
      ],
    });
    // Another account does not get the account's route: the general one, without prices or its tariff.
    const other = await h.createAccount();
    const general = await resolve({ destination: '79161234567', channelType: 'SMS', accountId: other.id });
    expect(general.body).toMatchObject({ connectorId: 'a', operator: 'МТС', buyPrice: null, sellPrice: null });
    expect(general.body.routeId).not.toBe(route.body.id);
  });

  it('answers connectorId null when no connector of the route is up', async () => {
    const route = await h.admin('POST', '/admin/v1/routes', {
      priority: 10,
      match: { channelType: 'SMS', accountIds: [account.id], prefixes: ['79162'] },
      connectors: [{ connectorId: 'dead', buyPrice: { amount: 0.1, currency: 'RUB' } }],
    });
    const reply = await resolve({ destination: '79162345678', channelType: 'SMS', accountId: account.id });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      routeId: route.body.id,
      connectorId: null,
      buyPrice: null,
      sellPrice: 2.5,
      margin: null,
      currency: 'RUB',
      connectors: [{ connectorId: 'dead', up: false }],
    });
  });

  it('takes senderName and trafficType into the match', async () => {
    const route = await h.admin('POST', '/admin/v1/routes', {
      priority: 10,
      match: { channelType: 'SMS', accountIds: [account.id], trafficTypes: ['PROMO'], senderNames: ['Sale'] },
      connectors: [{ connectorId: 'b' }],
    });
    const q = { destination: '79031234567', channelType: 'SMS', accountId: account.id };
    expect((await resolve({ ...q, senderName: 'Sale', trafficType: 'PROMO' })).body).toMatchObject({
      routeId: route.body.id,
      connectorId: 'b',
      operator: 'ВЫМПЕЛКОМ',
    });
    expect((await resolve({ ...q, senderName: 'Sale' })).body.routeId).not.toBe(route.body.id);
    expect((await resolve({ ...q, trafficType: 'PROMO' })).body.routeId).not.toBe(route.body.id);
  });

  it('answers 404 without a route, 404 for an unknown account, 422 for a bad destination', async () => {
    const noRoute = await resolve({ destination: '79161234567', channelType: 'VIBER' });
    expect([noRoute.status, noRoute.body]).toEqual([
      404,
      { error: { code: 4040, msg: 'A route for VIBER to 79161234567 not found' } },
    ]);
    const noAccount = await resolve({ destination: '79161234567', channelType: 'SMS', accountId: 987_654 });
    expect([noAccount.status, noAccount.body]).toEqual([
      404,
      { error: { code: 4040, msg: 'Account 987654 not found' } },
    ]);
    const bad = await resolve({ destination: 'not-a-number', channelType: 'SMS' });
    expect([bad.status, bad.body]).toEqual([
      422,
      { error: { code: 4220, msg: 'Invalid destination: "not-a-number"' } },
    ]);
    const missing = await h.admin('GET', '/admin/v1/routes/resolve?channelType=SMS');
    expect([missing.status, missing.body]).toEqual([422, { error: { code: 4220, msg: 'Missing destination' } }]);
  });

  it("refuses a buy price in another currency than the sale's without an exchange rate", async () => {
    const reply = await resolve({ destination: '79163456789', channelType: 'SMS', accountId: account.id });
    expect([reply.status, reply.body]).toEqual([
      422,
      { error: { code: 4220, msg: 'No exchange rate from USD to RUB: set HERALD_EXCHANGE_RATES' } },
    ]);
  });
});

describe.each(ENGINES)('route resolve with exchange rates (%s)', (engine) => {
  let h: RoutingHerald;
  let account: TestAccount;

  beforeAll(async () => {
    h = await startRoutingHerald(engine, { env: { HERALD_EXCHANGE_RATES: 'USD/RUB=90,EUR/RUB=100' } });
    account = await setUp(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("converts a buy price into the sale's currency at the operator's rate", async () => {
    const reply = await h.admin(
      'GET',
      resolvePath({ destination: '79163456789', channelType: 'SMS', accountId: account.id }),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    // 0.005 USD at 90 RUB: 0.45 RUB against a sale of 2.5 RUB.
    expect(reply.body).toMatchObject({
      connectorId: 'a',
      buyPrice: 0.45,
      sellPrice: 2.5,
      margin: 2.05,
      currency: 'RUB',
      connectors: [{ connectorId: 'a', buyPrice: { amount: 0.005, currency: 'USD' } }],
    });
  });
});
