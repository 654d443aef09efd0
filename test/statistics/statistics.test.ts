import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpStatistics } from '../../src/statistics/rollup.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

const LONG = 'x'.repeat(200);

describe.each(ENGINES)('statistics (DESIGN 6) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let other: TestAccount;
  let stopLater = '';
  let linkCode = '';
  const stats = async (query: string) => {
    const reply = await t.call('GET', `/api/v1/statistics?from=2026-03-01&to=2026-03-04&${query}`, {
      token: account.system,
    });
    expect(reply.status).toBe(200);
    return reply.body;
  };
  const send = (at: string, items: Record<string, unknown>[], token = account.traffic): Promise<string[]> => {
    t.clock.set(at);
    return t.send(token, items);
  };
  const stop = async (id: string) => {
    const reply = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [id] } });
    expect(reply.body.items[0].code).toBe(200);
  };

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-01T10:00:00Z'),
      env: { HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s' },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]], channels: { VK: true }, balance: 1000 });
    other = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 1000 });
    await t.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', price: 2.5, currency: 'RUB' });
    await t.admin('POST', '/admin/v1/tariffs', { channelType: 'VK', price: 1, currency: 'RUB' });

    // 1 March: four messages, one of two parts, one with a short link clicked once, tags on two.
    const [, , withLink] = await send('2026-03-01T10:00:00Z', [
      message('SMS', { tags: ['promo'] }),
      message('SMS', { content: LONG }),
      message('SMS', { content: 'Sale: https://shop.example/a', shortUrl: true }),
      message('VK', { tags: ['promo', 'vip'] }),
    ]);
    linkCode = (await t.call('GET', `/api/v1/message/${withLink}`, { token: account.traffic })).body.content
      .split('/')
      .at(-1);
    expect((await fetch(`${t.url}/s/${linkCode}`, { redirect: 'manual' })).status).toBe(302);
    stopLater = (await send('2026-03-01T23:59:59Z', [message('SMS')]))[0]!;
    // 2 March: two, one stopped (unsent, refunded).
    const [, stopped] = await send('2026-03-02T00:00:00Z', [message('SMS'), message('SMS', { tags: ['vip'] })]);
    await stop(stopped!);
    // 3 March: one; 4 March: one, outside the range asked for. Another account's message is never counted.
    await send('2026-03-03T12:00:00Z', [message('VK')]);
    await send('2026-03-04T00:00:00Z', [message('SMS')]);
    await send('2026-03-02T12:00:00Z', [message('SMS'), message('SMS')], other.traffic);
  });
  afterAll(async () => t?.close());

  const group = (
    key: string,
    messages: number,
    parts: number,
    statuses: Record<string, number>,
    rub: number,
    clicks = 0,
  ) => ({
    key,
    messages,
    parts,
    statuses,
    price: { RUB: rub },
    clicks,
    conversions: 0,
  });
  const BY_DAY = {
    items: [
      group('2026-03-01', 5, 6, { sending: 5 }, 13.5, 1),
      group('2026-03-02', 2, 2, { sending: 1, unsent: 1 }, 2.5),
      group('2026-03-03', 1, 1, { sending: 1 }, 1),
    ],
    total: group('total', 8, 9, { sending: 7, unsent: 1 }, 17, 1),
  };
  const BY_CHANNEL = [group('SMS', 6, 7, { sending: 5, unsent: 1 }, 15, 1), group('VK', 2, 2, { sending: 2 }, 2)];
  const BY_TAG = [group('promo', 2, 2, { sending: 2 }, 3.5), group('vip', 2, 2, { sending: 1, unsent: 1 }, 1)];

  const expectFigures = async () => {
    expect(await stats('groupBy=day')).toMatchObject({
      from: '2026-03-01T00:00:00Z',
      to: '2026-03-04T00:00:00Z',
      groupBy: 'day',
      ...BY_DAY,
    });
    expect((await stats('groupBy=channelType')).items).toEqual(BY_CHANNEL);
    expect((await stats('groupBy=senderName')).items).toEqual([
      group(SENDER, 6, 7, { sending: 5, unsent: 1 }, 15, 1),
      group('club1', 2, 2, { sending: 2 }, 2),
    ]);
    expect((await stats('groupBy=status')).items).toEqual([
      group('sending', 7, 8, { sending: 7 }, 17, 1),
      group('unsent', 1, 1, { unsent: 1 }, 0),
    ]);
    const byTag = await stats('groupBy=tag');
    expect(byTag.items).toEqual(BY_TAG);
    expect(byTag.total).toEqual(BY_DAY.total);
    // Filters combine with any grouping.
    expect((await stats('groupBy=day&tag=vip')).items).toEqual([
      group('2026-03-01', 1, 1, { sending: 1 }, 1),
      group('2026-03-02', 1, 1, { unsent: 1 }, 0),
    ]);
    expect((await stats('groupBy=day&channelType=VK')).total).toEqual(group('total', 2, 2, { sending: 2 }, 2));
    expect((await stats('groupBy=channelType&status=unsent')).items).toEqual([group('SMS', 1, 1, { unsent: 1 }, 0)]);
    expect((await stats('groupBy=day&senderName=nobody')).items).toEqual([]);
    // The list's spellings name the same filters (DESIGN 12, 14); every message here is SERVICE traffic.
    expect((await stats('groupBy=day&channel_type=VK')).total).toEqual(group('total', 2, 2, { sending: 2 }, 2));
    expect((await stats('groupBy=day&sender_name=nobody')).items).toEqual([]);
    expect((await stats('groupBy=day&trafficType=SERVICE')).total).toEqual(BY_DAY.total);
    expect((await stats('groupBy=channelType&traffic_type=SERVICE')).items).toEqual(BY_CHANNEL);
    expect((await stats('groupBy=day&traffic_type=PROMO')).items).toEqual([]);
    expect((await stats('groupBy=trafficType&channelType=VK')).items).toEqual([
      group('SERVICE', 2, 2, { sending: 2 }, 2),
    ]);
  };

  it('counts messages, parts, statuses, prices and clicks per group, live before any rollup', async () => {
    t.clock.set('2026-03-04T12:00:00Z');
    await expectFigures();
    // Partial days: from and to may be instants.
    const partial = await t.call('GET', '/api/v1/statistics?from=2026-03-01T12:00:00Z&to=2026-03-02T00:00:01Z', {
      token: account.system,
    });
    expect(partial.body.total).toEqual(group('total', 3, 3, { sending: 2, unsent: 1 }, 5));
    // Times as the API shows them (DESIGN 4): ISO 8601 UTC to the second.
    expect(partial.body).toMatchObject({ from: '2026-03-01T12:00:00Z', to: '2026-03-02T00:00:01Z' });
  });

  it("gives the daily rollup's figures; a day changed after its rollup counts live until rolled up again", async () => {
    t.clock.set('2026-03-06T01:00:00Z');
    const first = await rollUpStatistics(t.testDb.db, t.clock.now());
    expect(first.days).toBeGreaterThanOrEqual(4);
    const [state] = await t.testDb.db.query<{ day: string }>(
      "SELECT to_char(rolled_until, 'YYYY-MM-DD') AS day FROM stats_rollup_state",
    );
    expect(state!.day).toBe('2026-03-04');
    const [rolled] = await t.testDb.db.query<{ messages: string }>(
      'SELECT sum(messages)::text AS messages FROM stats_daily ' +
        "WHERE account_id = $1 AND day BETWEEN '2026-03-01' AND '2026-03-03' AND tag = ''",
      [account.id],
    );
    expect(Number(rolled!.messages)).toBe(8);
    await expectFigures();

    // A stop and a click on 1 March, already rolled up: the day is dirty and counted from the messages again.
    await stop(stopLater);
    expect((await fetch(`${t.url}/s/${linkCode}`, { redirect: 'manual' })).status).toBe(302);
    const dirty = await t.testDb.db.query('SELECT day FROM stats_dirty_days WHERE account_id = $1', [account.id]);
    expect(dirty).toHaveLength(1);
    const changed = {
      items: [group('2026-03-01', 5, 6, { sending: 4, unsent: 1 }, 11, 2), ...BY_DAY.items.slice(1)],
      total: group('total', 8, 9, { sending: 6, unsent: 2 }, 14.5, 2),
    };
    expect(await stats('groupBy=day')).toMatchObject(changed);

    const again = await rollUpStatistics(t.testDb.db, t.clock.now());
    expect(again).toEqual({ days: 0, redone: 1 });
    expect(
      await t.testDb.db.query('SELECT day FROM stats_dirty_days WHERE account_id = $1', [account.id]),
    ).toHaveLength(0);
    expect(await stats('groupBy=day')).toMatchObject(changed);
    expect((await stats('groupBy=tag')).total).toEqual(changed.total);
  });

  it('defaults to the last 30 days grouped by day', async () => {
    t.clock.set('2026-03-20T00:00:00Z');
    const reply = await t.call('GET', '/api/v1/statistics', { token: account.system });
    expect(reply.body).toMatchObject({
      from: '2026-02-18T00:00:00Z',
      to: '2026-03-20T00:00:00Z',
      groupBy: 'day',
    });
    expect(reply.body.items.map((i: { key: string }) => i.key)).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
    ]);
    expect(reply.body.total.messages).toBe(9);
  });

  it.each([
    ['from=2026-03-04&to=2026-03-01', 'from'],
    ['from=yesterday', 'from'],
    ['from=2026-13-45', 'from'],
    ['from=2025-01-01&to=2026-03-01', 'to'],
  ])('refuses %s with 4220 naming %s', async (query, field) => {
    const reply = await t.call('GET', `/api/v1/statistics?${query}`, { token: account.system });
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe(4220);
    expect(reply.body.error.msg).toContain(field);
  });

  it.each([
    ['channel_type=MMS', 'Invalid channel_type: "MMS"'],
    ['traffic_type=BULK', 'Invalid traffic_type: "BULK"'],
    ['channelType=VK&channel_type=SMS', 'Invalid channel_type: "SMS" (channelType is "VK")'],
    ['tags=promo', 'Invalid tags'],
    ['channeltype=VK', 'Invalid channeltype'],
  ])('refuses %s with 422 4220', async (query, msg) => {
    const reply = await t.call('GET', `/api/v1/statistics?${query}`, { token: account.system });
    expect(reply.body.error).toMatchObject({ code: 4220 });
    expect(reply.body.error.msg.startsWith(msg), reply.body.error.msg).toBe(true);
    expect(reply.status).toBe(422);
  });

  it('refuses an unknown grouping and TOKEN_1', async () => {
    const grouping = await t.call('GET', '/api/v1/statistics?groupBy=week', { token: account.system });
    expect(grouping.status).toBe(422);
    expect(grouping.body.error.msg).toContain('groupBy');
    const wrong = await t.call('GET', '/api/v1/statistics', { token: account.traffic });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe(4030);
  });
});
