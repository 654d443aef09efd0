import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionCutoff, retentionSweep } from '../../src/retention/retention.js';
import { rollUpStatistics } from '../../src/statistics/rollup.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from './messageFixtures.js';
import { messagesSet } from '../helpers/messageRows.js';

/**
 * The list's `total` takes rolled-up days from the statistics rollup (docs/delivery.md, Listing): it must stay the
 * number of messages the list holds whatever the filter, before and after a rollup, when a rolled-up day changes,
 * and when the retention has deleted messages of rolled-up days.
 */
const QUERIES = [
  '',
  '?status=sending',
  '?status=unsent',
  '?status=delivered',
  '?tags=vip',
  '?tags=promo',
  '?tags=vip,promo',
  '?tags=vip,vip',
  `?sender_name=${SENDER}&tags=vip`,
  '?channel_type=VK',
  '?traffic_type=PROMO',
  '?traffic_type=SERVICE&status=sending',
  '?root=true',
  '?root=false',
  '?time_from=2026-03-01T12:00:00Z',
  '?time_to=2026-03-02 23:59:59',
  '?time_to=2026-03-02 23:59:58',
  '?time_from=2026-03-02&time_to=2026-03-03T23:59:59Z&sort=asc',
  '?time_from=2026-03-02T00:00:00.001Z&status=sending',
  '?direction=inbound',
  '?destination=79161234501',
  '?status=read',
];

/** Each query's total against the messages its pages hold. */
async function expectTotals(t: TestHerald, token: string, expected?: Record<string, number>): Promise<void> {
  for (const query of QUERIES) {
    const separator = query === '' ? '?' : '&';
    const reply = await t.call('GET', `/api/v1/message${query}${separator}per_page=1000`, { token });
    expect(reply.status, query).toBe(200);
    expect([query, reply.body.total]).toEqual([query, reply.body.items.length]);
    if (expected?.[query] !== undefined) expect([query, reply.body.total]).toEqual([query, expected[query]]);
  }
}

describe.each(ENGINES)('the total of GET /api/v1/message (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let stopLater = '';
  const send = (at: string, items: Record<string, unknown>[], token = account.traffic): Promise<string[]> => {
    t.clock.set(at);
    return t.send(token, items);
  };

  beforeAll(async () => {
    t = await startTestHerald(engine, { clock: new TestClock('2026-03-01T10:00:00Z') });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]], channels: { VK: true } });
    const other = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    // 1 March: tags (one repeated within a message), a PROMO message, a cascade of two steps.
    const first = await send('2026-03-01T10:00:00Z', [
      message('SMS', { tags: ['promo'], destination: '79161234501' }),
      message('SMS', { tags: ['vip', 'vip'] }),
      message('VK', { tags: ['promo', 'vip'] }),
      message('SMS', { trafficType: 'PROMO' }),
      message('SMS'),
    ]);
    stopLater = first[4]!;
    const cascade = await t.call('POST', '/api/v1/message/cascade', {
      token: account.traffic,
      body: [
        {
          destination: '79161234502',
          cascade: [
            { channelType: 'VK', senderName: 'club1', content: 'first', condition: 'not_delivered' },
            { channelType: 'SMS', senderName: SENDER, content: 'second' },
          ],
        },
      ],
    });
    expect(cascade.status).toBe(200);
    // Its second step, as if the first had not been delivered (the step's own fields are all the list reads).
    await t.testDb.db.query(
      `INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, content,
         total_parts, status, status_at, cascade_id, cascade_step)
       SELECT account_id, '019ca8d7-2d00-7fff-8000-000000000001', created_at, 'SMS', $2, destination, '"second"',
         1, 'sending', status_at, cascade_id, 2
       FROM messages WHERE account_id = $1 AND id = $3`,
      [account.id, SENDER, cascade.body.items[0].messageUuid],
    );
    // 2 March: two messages at the day's edges, one stopped (unsent); an inbound message.
    const [, stopped] = await send('2026-03-02T00:00:00Z', [message('SMS'), message('SMS', { tags: ['vip'] })]);
    const reply = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [stopped] } });
    expect(reply.body.items[0].code).toBe(200);
    await send('2026-03-02T23:59:59Z', [message('VK', { destination: '79161234501' })]);
    await t.testDb.db.query(
      `INSERT INTO messages (account_id, id, created_at, channel_type, direction, sender_name, destination, content,
         total_parts, status, status_at)
       VALUES ($1, '019cae6b-6600-7000-8000-000000000001', '2026-03-02T12:00:00Z', 'WHATSAPP', 'inbound', $2,
         '79161234567', '"Where is my parcel?"', 1, 'inbound_sent', '2026-03-02T12:00:00Z')`,
      [account.id, SENDER],
    );
    // 3 and 5 March; another account's message is never counted.
    await send('2026-03-03T12:00:00Z', [message('VK')]);
    await send('2026-03-05T08:00:00Z', [message('SMS', { tags: ['vip'] })]);
    await send('2026-03-05T09:00:00Z', [message('SMS', { tags: ['vip'] })], other.traffic);
  });
  afterAll(async () => t?.close());

  const EXPECTED = {
    '': 12,
    '?status=unsent': 1,
    '?tags=vip': 4,
    '?tags=vip,promo': 5,
    '?root=false': 1,
    '?direction=inbound': 1,
    '?destination=79161234501': 2,
  };

  it('counts every filter exactly before any rollup', async () => {
    t.clock.set('2026-03-05T12:00:00Z');
    await expectTotals(t, account.traffic, EXPECTED);
  });

  it('counts rolled-up days from the rollup, and a day changed since live until it is rolled up again', async () => {
    t.clock.set('2026-03-06T01:00:00Z');
    await rollUpStatistics(t.testDb.db, t.clock.now());
    await expectTotals(t, account.traffic, EXPECTED);

    // The rolled-up days are read from stats_daily: a change there shows in the total (and is undone).
    const shift = (n: number) =>
      t.testDb.db.query(
        `UPDATE stats_daily SET messages = messages + $2
         WHERE account_id = $1 AND day = '2026-03-01' AND tag = '' AND status = 'sending' AND channel_type = 'VK'
           AND cascade_step = 0`,
        [account.id, n],
      );
    await shift(100);
    expect((await t.call('GET', '/api/v1/message?per_page=1', { token: account.traffic })).body.total).toBe(112);
    await shift(-100);

    // Stopped after the rollup: its day is dirty and counted from the messages until the next rollup.
    const reply = await t.call('POST', '/api/v1/message/stop', {
      token: account.traffic,
      body: { uuids: [stopLater] },
    });
    expect(reply.body.items[0].code).toBe(200);
    const changed = { ...EXPECTED, '?status=unsent': 2 };
    await expectTotals(t, account.traffic, changed);
    await rollUpStatistics(t.testDb.db, t.clock.now());
    await expectTotals(t, account.traffic, changed);
  });

  it('counts the days before the oldest message from the messages: a dropped partition leaves its rollup', async () => {
    await t.testDb.db.query("DELETE FROM messages WHERE account_id = $1 AND created_at < '2026-03-02'", [account.id]);
    await expectTotals(t, account.traffic, { '': 5, '?tags=vip': 2, '?root=false': 0 });
  });
});

describe.each(ENGINES)('the total of GET /api/v1/message with HERALD_RETENTION_DAYS (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-01T10:00:00Z'),
      env: { HERALD_RETENTION_DAYS: '7' },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  it('counts the days the retention has reached from the messages left, not from their rollup', async () => {
    const old = await t.send(account.traffic, [message('SMS', { tags: ['vip'] }), message('SMS'), message('SMS')]);
    // Two of them finished (the retention deletes those); the third still waits.
    await messagesSet(
      t.testDb.db,
      { accountId: account.id, ids: old.slice(0, 2) },
      { status: 'delivered', due_at: null },
    );
    t.clock.set('2026-03-12T10:00:00Z');
    await t.send(account.traffic, [message('SMS', { tags: ['vip'] })]);
    await rollUpStatistics(t.testDb.db, t.clock.now());
    expect((await retentionSweep(t.testDb.db, retentionCutoff(t.clock.now(), 7))).messages).toBe(2);
    await expectTotals(t, account.traffic, { '': 2, '?tags=vip': 1, '?status=delivered': 0 });
  });
});
