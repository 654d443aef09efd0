import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { startRoutingHerald, type RoutingHerald } from './routingHerald.js';

/** A POST body: an SMS route by connector `a`, with `more` on top. */
const body = (more: Record<string, unknown> = {}) => ({
  match: { channelType: 'SMS', prefixes: ['7999'] },
  connectors: [{ connectorId: 'a' }],
  ...more,
});
const two = [{ connectorId: 'a' }, { connectorId: 'b' }];
const rub = (amount: number) => ({ amount, currency: 'RUB' });

/** Bodies the API refuses, with the error each gets: [what, body, status, message]. */
const REFUSED: [string, Record<string, unknown>, number, string][] = [
  [
    'an unknown connector',
    body({ connectors: [{ connectorId: 'a' }, { connectorId: 'nope' }] }),
    422,
    'connectors.1.connectorId: no connector nope is configured',
  ],
  [
    'a connector of another channel',
    body({ connectors: [{ connectorId: 'vb' }] }),
    422,
    'connectors.0.connectorId: vb carries VIBER, not SMS',
  ],
  [
    'a connector named twice',
    body({ connectors: [{ connectorId: 'a' }, { connectorId: 'b' }, { connectorId: 'a' }] }),
    422,
    'connectors.2.connectorId: a is named twice',
  ],
  [
    'a weight on an ordered route',
    body({ connectors: [{ connectorId: 'a' }, { connectorId: 'b', weight: 2 }] }),
    422,
    "connectors.1.weight: weights are for the weighted strategy, the route's is ordered",
  ],
  [
    'a weight on a cheapest route',
    body({ strategy: 'cheapest', connectors: [{ connectorId: 'a', weight: 2, buyPrice: rub(1) }] }),
    422,
    "connectors.0.weight: weights are for the weighted strategy, the route's is cheapest",
  ],
  [
    'cheapest without a buy price',
    body({ strategy: 'cheapest', connectors: [{ connectorId: 'a', buyPrice: rub(1) }, { connectorId: 'b' }] }),
    422,
    "connectors.1.buyPrice: the cheapest strategy needs every connector's price",
  ],
  [
    'cheapest with two currencies',
    body({
      strategy: 'cheapest',
      connectors: [
        { connectorId: 'a', buyPrice: rub(1) },
        { connectorId: 'b', buyPrice: { amount: 0.01, currency: 'USD' } },
      ],
    }),
    422,
    'connectors: the cheapest strategy compares prices in one currency, got RUB, USD',
  ],
  [
    'a reroute with one connector',
    body({ reroute: { onUndelivered: true } }),
    422,
    'reroute: a route needs a second connector to reroute to',
  ],
  [
    'a reroute with neither errorCodes nor onUndelivered',
    body({ connectors: two, reroute: { max: 2 } }),
    422,
    'reroute: give errorCodes, onUndelivered: true, or both',
  ],
  [
    'a reroute with empty errorCodes and onUndelivered false',
    body({ connectors: two, reroute: { errorCodes: [], onUndelivered: false } }),
    422,
    'reroute: give errorCodes, onUndelivered: true, or both',
  ],
  [
    'a reroute max above 3',
    body({ connectors: two, reroute: { onUndelivered: true, max: 4 } }),
    422,
    'Invalid reroute.max: 4 (must be <= 3)',
  ],
  [
    'a delivery rate above 1',
    body({ quality: { minDeliveryRate: 1.5, windowSeconds: 600 } }),
    422,
    'Invalid quality.minDeliveryRate: 1.5 (must be <= 1)',
  ],
  [
    'a delivery rate below 0',
    body({ quality: { minDeliveryRate: -0.1, windowSeconds: 600 } }),
    422,
    'Invalid quality.minDeliveryRate: -0.1 (must be >= 0)',
  ],
  [
    'a quality window under a minute',
    body({ quality: { minDeliveryRate: 0.5, windowSeconds: 59 } }),
    422,
    'Invalid quality.windowSeconds: 59 (must be >= 60)',
  ],
  [
    'a quality window over a day',
    body({ quality: { minDeliveryRate: 0.5, windowSeconds: 86_401 } }),
    422,
    'Invalid quality.windowSeconds: 86401 (must be <= 86400)',
  ],
  ['a quality without its window', body({ quality: { minDeliveryRate: 0.5 } }), 422, 'Missing quality.windowSeconds'],
  ['a priority above the bound', body({ priority: 1_000_001 }), 422, 'Invalid priority: 1000001 (must be <= 1000000)'],
  [
    'a priority below the bound',
    body({ priority: -1_000_001 }),
    422,
    'Invalid priority: -1000001 (must be >= -1000000)',
  ],
  ['a fractional priority', body({ priority: 1.5 }), 422, 'Invalid priority: 1.5 (must be integer)'],
  [
    'a prefix with a letter',
    body({ match: { channelType: 'SMS', prefixes: ['79x'] } }),
    422,
    'Invalid match.prefixes.0: "79x" (must match pattern "^[0-9]{1,15}$")',
  ],
  [
    'a prefix of 16 digits',
    body({ match: { channelType: 'SMS', prefixes: ['7', '1234567890123456'] } }),
    422,
    'Invalid match.prefixes.1: "1234567890123456" (must match pattern "^[0-9]{1,15}$")',
  ],
  [
    'an empty prefix list',
    body({ match: { channelType: 'SMS', prefixes: [] } }),
    422,
    'Invalid match.prefixes: [] (must NOT have fewer than 1 items)',
  ],
  [
    'a country in lower case',
    body({ match: { channelType: 'SMS', countries: ['ru'] } }),
    422,
    'Invalid match.countries.0: "ru" (must match pattern "^[A-Z]{2}$")',
  ],
  [
    'a three-letter country',
    body({ match: { channelType: 'SMS', countries: ['RUS'] } }),
    422,
    'Invalid match.countries.0: "RUS" (must match pattern "^[A-Z]{2}$")',
  ],
  [
    'an unknown traffic type',
    body({ match: { channelType: 'SMS', trafficTypes: ['SERVICE', 'BULK'] } }),
    422,
    'Invalid match.trafficTypes.1: "BULK" (must be equal to one of the allowed values)',
  ],
  [
    'an unknown channel',
    body({ match: { channelType: 'FAX' } }),
    422,
    'Invalid match.channelType: "FAX" (must be equal to one of the allowed values)',
  ],
  [
    'an unknown strategy',
    body({ strategy: 'random' }),
    422,
    'Invalid strategy: "random" (must be equal to one of the allowed values)',
  ],
  [
    'a currency in lower case',
    body({ connectors: [{ connectorId: 'a', buyPrice: { amount: 1, currency: 'rub' } }] }),
    422,
    'Invalid connectors.0.buyPrice.currency: "rub" (must match pattern "^[A-Z]{3}$")',
  ],
  [
    'a negative buy price',
    body({ connectors: [{ connectorId: 'a', buyPrice: rub(-1) }] }),
    422,
    'Invalid connectors.0.buyPrice.amount: -1 (must be >= 0)',
  ],
  [
    'a weight of 0',
    body({ strategy: 'weighted', connectors: [{ connectorId: 'a', weight: 0 }] }),
    422,
    'Invalid connectors.0.weight: 0 (must be >= 1)',
  ],
  ['a property the route does not have', body({ colour: 'red' }), 422, 'Invalid colour'],
  [
    'a match field the route does not have',
    body({ match: { channelType: 'SMS', region: 'x' } }),
    422,
    'Invalid match.region',
  ],
  [
    'a connector field it does not have',
    body({ connectors: [{ connectorId: 'a', cost: 1 }] }),
    422,
    'Invalid connectors.0.cost',
  ],
  [
    'a buy price field it does not have',
    body({ connectors: [{ connectorId: 'a', buyPrice: { amount: 1, currency: 'RUB', vat: 1 } }] }),
    422,
    'Invalid connectors.0.buyPrice.vat',
  ],
  ['no connectors', body({ connectors: [] }), 422, 'Invalid connectors: [] (must NOT have fewer than 1 items)'],
  ['connectors missing', { match: { channelType: 'SMS' } }, 422, 'Missing connectors'],
  ['match missing', { connectors: [{ connectorId: 'a' }] }, 422, 'Missing match'],
  ['the channel missing', body({ match: { prefixes: ['7'] } }), 422, 'Missing match.channelType'],
  [
    'an unknown account',
    body({ match: { channelType: 'SMS', accountIds: [987_654] } }),
    404,
    'Account 987654 not found',
  ],
];

describe.each(ENGINES)('routes API (%s)', (engine) => {
  let h: RoutingHerald;

  beforeAll(async () => {
    h = await startRoutingHerald(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = async (more: Record<string, unknown>) => {
    const reply = await h.admin('POST', '/admin/v1/routes', body(more));
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { id: number; priority: number; match: Record<string, unknown> };
  };
  const routeCount = async () =>
    (await h.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM routes'))[0]!.n;

  it('answers 401 without the admin token, or with another one', async () => {
    const requests: [string, string, unknown?][] = [
      ['GET', '/admin/v1/routes'],
      ['POST', '/admin/v1/routes', body()],
      ['GET', '/admin/v1/routes/1'],
      ['PATCH', '/admin/v1/routes/1', { priority: 3 }],
      ['DELETE', '/admin/v1/routes/1'],
      ['POST', '/admin/v1/routes/reorder', { ids: [1] }],
      ['GET', '/admin/v1/routes/resolve?destination=79161234567&channelType=SMS'],
    ];
    for (const [method, path, payload] of requests) {
      const none = await h.call(method, path, { body: payload });
      expect([method, path, none.status, none.body]).toEqual([
        method,
        path,
        401,
        { error: { code: 4010, msg: 'Not Authenticated' } },
      ]);
      const wrong = await h.call(method, path, { auth: 'Bearer not-the-admin-token', body: payload });
      expect([method, path, wrong.status, wrong.body.error.code]).toEqual([method, path, 401, 4012]);
    }
    // Nothing was changed: the seeded route is as it was.
    expect((await h.admin('GET', '/admin/v1/routes/1')).body).toMatchObject({
      priority: 0,
      connectors: [{ connectorId: 'a' }],
    });
  });

  it('creates, gets, changes and deletes a route', async () => {
    const full = {
      priority: 40,
      match: {
        channelType: 'SMS',
        trafficTypes: ['PROMO'],
        senderNames: ['Shop'],
        prefixes: ['79031', '79032'],
        countries: ['RU'],
        operators: ['Билайн'],
      },
      connectors: [
        { connectorId: 'a', buyPrice: { amount: 0.35, currency: 'RUB' } },
        { connectorId: 'b', buyPrice: { amount: 0.3, currency: 'RUB' } },
      ],
      strategy: 'cheapest',
      reroute: { errorCodes: [8, 88] },
      quality: { minDeliveryRate: 0.9, windowSeconds: 3600 },
    };
    const created = await h.admin('POST', '/admin/v1/routes', full);
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const expected = {
      ...full,
      id,
      // The defaults of the reroute filled in.
      reroute: { errorCodes: [8, 88], onUndelivered: false, max: 1 },
      createdTime: '2026-03-10T09:00:00.000Z',
      updatedTime: '2026-03-10T09:00:00.000Z',
    };
    expect(created.body).toEqual(expected);
    expect((await h.admin('GET', `/admin/v1/routes/${id}`)).body).toEqual(expected);

    h.clock.advance(60_000);
    const patched = await h.admin('PATCH', `/admin/v1/routes/${id}`, {
      priority: 41,
      strategy: 'weighted',
      connectors: [
        { connectorId: 'b', weight: 3 },
        { connectorId: 'a', weight: 1 },
      ],
      reroute: null,
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toEqual({
      ...expected,
      priority: 41,
      strategy: 'weighted',
      connectors: [
        { connectorId: 'b', weight: 3 },
        { connectorId: 'a', weight: 1 },
      ],
      reroute: null,
      updatedTime: '2026-03-10T09:01:00.000Z',
    });
    expect((await h.admin('GET', `/admin/v1/routes/${id}`)).body).toEqual(patched.body);

    const deleted = await h.admin('DELETE', `/admin/v1/routes/${id}`);
    expect([deleted.status, deleted.body]).toEqual([204, '']);
    expect((await h.admin('GET', `/admin/v1/routes/${id}`)).body).toEqual({
      error: { code: 4040, msg: `Route ${id} not found` },
    });
  });

  it('takes a route without priority or strategy as priority 0, ordered, with no reroute or quality', async () => {
    const created = await h.admin('POST', '/admin/v1/routes', {
      match: { channelType: 'SMS', prefixes: ['7998'] },
      connectors: [{ connectorId: 'b' }],
    });
    expect(created.body).toMatchObject({
      priority: 0,
      match: { channelType: 'SMS', prefixes: ['7998'] },
      connectors: [{ connectorId: 'b' }],
      strategy: 'ordered',
      reroute: null,
      quality: null,
    });
  });

  it('lists by account and by channel, highest priority first, page by page', async () => {
    const mine = await h.createAccount();
    const other = await h.createAccount();
    const accountMatch = (ids: number[]) => ({ match: { channelType: 'SMS', accountIds: ids } });
    const r1 = await create({ ...accountMatch([mine.id]), priority: 5 });
    const r2 = await create({ ...accountMatch([other.id, mine.id]), priority: 7 });
    const r3 = await create({ ...accountMatch([mine.id]), priority: 5 });
    const theirs = await create({ ...accountMatch([other.id]), priority: 9 });

    const list = async (query: string) => {
      const reply = await h.admin('GET', `/admin/v1/routes?${query}`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body as { items: { id: number; match: { channelType: string } }[]; page: number; total: number };
    };
    const ids = (page: { items: { id: number }[] }) => page.items.map((r) => r.id);

    expect(ids(await list(`accountId=${mine.id}`))).toEqual([r2.id, r1.id, r3.id]);
    expect(ids(await list(`accountId=${other.id}`))).toEqual([theirs.id, r2.id]);
    expect(await list(`accountId=${mine.id}&per_page=2`)).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(ids(await list(`accountId=${mine.id}&per_page=2`))).toEqual([r2.id, r1.id]);
    const second = await list(`accountId=${mine.id}&per_page=2&page=2`);
    expect([ids(second), second.page, second.total]).toEqual([[r3.id], 2, 3]);
    // A page past the end has no items, and the total is still the number of routes the filter finds.
    const past = await list(`accountId=${mine.id}&per_page=2&page=3`);
    expect([ids(past), past.page, past.total]).toEqual([[], 3, 3]);

    const viber = await h.admin('POST', '/admin/v1/routes', {
      match: { channelType: 'VIBER', accountIds: [mine.id] },
      connectors: [{ connectorId: 'vb' }],
    });
    expect(viber.status).toBe(201);
    const viberList = await list('channelType=VIBER');
    expect(ids(viberList)).toEqual([viber.body.id]);
    const smsList = await list('channelType=SMS&per_page=1000');
    expect(smsList.items.every((r) => r.match.channelType === 'SMS')).toBe(true);
    expect(ids(smsList)).toEqual(expect.arrayContaining([r1.id, r2.id, r3.id, theirs.id]));
    expect(ids(smsList)).not.toContain(viber.body.id);
    expect(ids(await list(`channelType=SMS&accountId=${mine.id}`))).toEqual([r2.id, r1.id, r3.id]);
    expect(ids(await list(`channelType=VIBER&accountId=${other.id}`))).toEqual([]);

    for (const [query, msg] of [
      ['channelType=FAX', 'Invalid channelType: "FAX" (must be equal to one of the allowed values)'],
      ['per_page=0', 'Invalid per_page: 0 (must be >= 1)'],
      ['colour=red', 'Invalid colour'],
    ]) {
      const reply = await h.admin('GET', `/admin/v1/routes?${query}`);
      expect([query, reply.status, reply.body]).toEqual([query, 422, { error: { code: 4220, msg } }]);
    }
  });

  it('merges match on PATCH: a field set to null is removed, the fields not given are kept', async () => {
    const account = await h.createAccount();
    const route = await create({
      priority: 3,
      match: { channelType: 'SMS', accountIds: [account.id], prefixes: ['7997'], countries: ['RU'] },
      connectors: [{ connectorId: 'a' }, { connectorId: 'b' }],
      reroute: { onUndelivered: true, max: 2 },
    });
    const patched = await h.admin('PATCH', `/admin/v1/routes/${route.id}`, {
      match: { prefixes: null, senderNames: ['Shop'] },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      priority: 3,
      match: { channelType: 'SMS', accountIds: [account.id], countries: ['RU'], senderNames: ['Shop'] },
      connectors: [{ connectorId: 'a' }, { connectorId: 'b' }],
      strategy: 'ordered',
      reroute: { errorCodes: [], onUndelivered: true, max: 2 },
      quality: null,
    });
    expect(patched.body.match).not.toHaveProperty('prefixes');
    expect((await h.admin('GET', `/admin/v1/routes/${route.id}`)).body).toEqual(patched.body);

    // A PATCH is checked as a whole route: one connector left cannot carry its reroute.
    const oneLeft = await h.admin('PATCH', `/admin/v1/routes/${route.id}`, { connectors: [{ connectorId: 'a' }] });
    expect([oneLeft.status, oneLeft.body]).toEqual([
      422,
      { error: { code: 4220, msg: 'reroute: a route needs a second connector to reroute to' } },
    ]);
    // Another channel than its connectors'.
    const viber = await h.admin('PATCH', `/admin/v1/routes/${route.id}`, { match: { channelType: 'VIBER' } });
    expect([viber.status, viber.body]).toEqual([
      422,
      { error: { code: 4220, msg: 'connectors.0.connectorId: a carries SMS, not VIBER' } },
    ]);
    // cheapest needs prices the route does not have.
    const cheapest = await h.admin('PATCH', `/admin/v1/routes/${route.id}`, { strategy: 'cheapest' });
    expect([cheapest.status, cheapest.body.error]).toEqual([
      422,
      { code: 4220, msg: "connectors.0.buyPrice: the cheapest strategy needs every connector's price" },
    ]);
    const unknownAccount = await h.admin('PATCH', `/admin/v1/routes/${route.id}`, {
      match: { accountIds: [987_654] },
    });
    expect([unknownAccount.status, unknownAccount.body.error]).toEqual([
      404,
      { code: 4040, msg: 'Account 987654 not found' },
    ]);
    for (const [patch, msg] of [
      [{}, 'Invalid body: {} (must NOT have fewer than 1 properties)'],
      [{ priority: 2_000_000 }, 'Invalid priority: 2000000 (must be <= 1000000)'],
      [
        { match: { channelType: null } },
        'Invalid match.channelType: null (must be equal to one of the allowed values)',
      ],
      [{ id: 5 }, 'Invalid id'],
    ] as const) {
      const reply = await h.admin('PATCH', `/admin/v1/routes/${route.id}`, patch);
      expect([patch, reply.status, reply.body]).toEqual([patch, 422, { error: { code: 4220, msg } }]);
    }
    // None of the refused changes was made.
    expect((await h.admin('GET', `/admin/v1/routes/${route.id}`)).body).toEqual(patched.body);
  });

  it('reorders routes: the listed ones get priorities from top down, the others keep theirs', async () => {
    const account = await h.createAccount();
    const match = { channelType: 'SMS', accountIds: [account.id] };
    const r1 = await create({ match, priority: 1 });
    const r2 = await create({ match, priority: 20 });
    const r3 = await create({ match, priority: 5 });
    const untouched = await create({ match, priority: 10 });

    const reordered = await h.admin('POST', '/admin/v1/routes/reorder', { ids: [r1.id, r3.id, r2.id], top: 100 });
    expect(reordered.status, JSON.stringify(reordered.body)).toBe(200);
    expect(reordered.body.items.map((r: { id: number; priority: number }) => [r.id, r.priority])).toEqual([
      [r1.id, 100],
      [r3.id, 99],
      [r2.id, 98],
    ]);
    // Without top: from the highest priority among them.
    const again = await h.admin('POST', '/admin/v1/routes/reorder', { ids: [r2.id, r1.id] });
    expect(again.body.items.map((r: { id: number; priority: number }) => [r.id, r.priority])).toEqual([
      [r2.id, 100],
      [r1.id, 99],
    ]);
    const listed = await h.admin('GET', `/admin/v1/routes?accountId=${account.id}`);
    // Equal priorities by id: r1 was made before r3.
    expect(listed.body.items.map((r: { id: number; priority: number }) => [r.id, r.priority])).toEqual([
      [r2.id, 100],
      [r1.id, 99],
      [r3.id, 99],
      [untouched.id, 10],
    ]);

    const missing = await h.admin('POST', '/admin/v1/routes/reorder', { ids: [r1.id, 987_654, 987_653] });
    expect([missing.status, missing.body]).toEqual([
      404,
      { error: { code: 4040, msg: 'Route 987654, 987653 not found' } },
    ]);
    const low = await h.admin('POST', '/admin/v1/routes/reorder', { ids: [r1.id, r2.id], top: -1_000_000 });
    expect([low.status, low.body]).toEqual([
      422,
      { error: { code: 4220, msg: 'top: -1000000 puts the last route below -1000000' } },
    ]);
    for (const [payload, msg] of [
      [{ ids: [] }, 'Invalid ids: [] (must NOT have fewer than 1 items)'],
      [
        { ids: [r1.id, r1.id] },
        `Invalid ids: [${r1.id},${r1.id}] (must NOT have duplicate items (items ## 1 and 0 are identical))`,
      ],
      [{ ids: [r1.id], top: 1_000_001 }, 'Invalid top: 1000001 (must be <= 1000000)'],
    ] as const) {
      const reply = await h.admin('POST', '/admin/v1/routes/reorder', payload);
      expect([payload, reply.status, reply.body]).toEqual([payload, 422, { error: { code: 4220, msg } }]);
    }
    // The refused reorders changed nothing.
    const after = await h.admin('GET', `/admin/v1/routes?accountId=${account.id}`);
    expect(after.body.items).toEqual(listed.body.items);
  });

  it('keeps a reorder without top within the priority bounds', async () => {
    const account = await h.createAccount();
    const match = { channelType: 'SMS', accountIds: [account.id] };
    const r1 = await create({ match, priority: -1_000_000 });
    const r2 = await create({ match, priority: -1_000_000 });
    const reply = await h.admin('POST', '/admin/v1/routes/reorder', { ids: [r1.id, r2.id] });
    expect([reply.status, reply.body]).toEqual([
      422,
      { error: { code: 4220, msg: 'top: -1000000 puts the last route below -1000000' } },
    ]);
    const listed = await h.admin('GET', `/admin/v1/routes?accountId=${account.id}`);
    expect(listed.body.items.map((r: { priority: number }) => r.priority)).toEqual([-1_000_000, -1_000_000]);
  });

  it.each(REFUSED)('refuses %s with the error naming the field', async (_what, payload, status, msg) => {
    const before = await routeCount();
    const reply = await h.admin('POST', '/admin/v1/routes', payload);
    expect([reply.status, reply.body]).toEqual([status, { error: { code: status * 10, msg } }]);
    expect(await routeCount()).toBe(before);
  });

  it('answers 404 for a route that does not exist, on get, patch, delete and reorder', async () => {
    const notFound = { error: { code: 4040, msg: 'Route 987654 not found' } };
    const get = await h.admin('GET', '/admin/v1/routes/987654');
    expect([get.status, get.body]).toEqual([404, notFound]);
    const patch = await h.admin('PATCH', '/admin/v1/routes/987654', { priority: 1 });
    expect([patch.status, patch.body]).toEqual([404, notFound]);
    const del = await h.admin('DELETE', '/admin/v1/routes/987654');
    expect([del.status, del.body]).toEqual([404, notFound]);
    const reorder = await h.admin('POST', '/admin/v1/routes/reorder', { ids: [987_654] });
    expect([reorder.status, reorder.body]).toEqual([404, notFound]);
    const bad = await h.admin('GET', '/admin/v1/routes/abc');
    expect(bad.status).toBe(422);
  });
});

describe.each(ENGINES)("routes seeded from the config file's on the first start only (%s)", (engine) => {
  let testDb: TestDb;

  beforeAll(async () => {
    testDb = await openTestDb(engine);
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("lists the config file's routes after the first start, unchanged by a later start's other file", async () => {
    const first = await startRoutingHerald(engine, {
      on: testDb,
      routes: [
        { channel: 'SMS', prefixes: ['7916', '7916', '7903'], connectors: ['b', 'a'] },
        { channel: 'SMS', prefixes: [], connectors: ['a'] },
        { channel: 'VIBER', prefixes: [], connectors: ['vb'] },
      ],
    });
    let seeded: unknown;
    try {
      const listed = await first.admin('GET', '/admin/v1/routes');
      expect(listed.status).toBe(200);
      seeded = listed.body;
      expect(listed.body.total).toBe(3);
      expect(
        listed.body.items.map((r: Record<string, unknown>) => ({
          match: r.match,
          connectors: r.connectors,
          priority: r.priority,
          strategy: r.strategy,
        })),
      ).toEqual([
        {
          match: { channelType: 'SMS', prefixes: ['7916', '7903'] },
          connectors: [{ connectorId: 'b' }, { connectorId: 'a' }],
          priority: 0,
          strategy: 'ordered',
        },
        { match: { channelType: 'SMS' }, connectors: [{ connectorId: 'a' }], priority: 0, strategy: 'ordered' },
        { match: { channelType: 'VIBER' }, connectors: [{ connectorId: 'vb' }], priority: 0, strategy: 'ordered' },
      ]);
    } finally {
      await first.close();
    }

    const second = await startRoutingHerald(engine, {
      on: testDb,
      routes: [{ channel: 'SMS', prefixes: ['7'], connectors: ['b'] }],
    });
    try {
      expect((await second.admin('GET', '/admin/v1/routes')).body).toEqual(seeded);
    } finally {
      await second.close();
    }
  });

  it('seeds nothing on a later start even after the operator deleted every route', async () => {
    const db = await openTestDb(engine);
    try {
      const first = await startRoutingHerald(engine, { on: db });
      try {
        for (const r of (await first.admin('GET', '/admin/v1/routes')).body.items)
          expect((await first.admin('DELETE', `/admin/v1/routes/${r.id}`)).status).toBe(204);
      } finally {
        await first.close();
      }
      const second = await startRoutingHerald(engine, { on: db });
      try {
        expect((await second.admin('GET', '/admin/v1/routes')).body).toMatchObject({ items: [], total: 0 });
      } finally {
        await second.close();
      }
    } finally {
      await db.drop();
    }
  });
});
