import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpStatistics } from '../../src/statistics/rollup.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { BOT, message, SENDER } from '../messages/messageFixtures.js';

/** TELEGRAM in tariffs, statistics and the message list's filters (DESIGN 18: a channel wherever one is taken). */
describe.each(ENGINES)('TELEGRAM in tariffs, statistics and list filters (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let telegram: string[] = [];
  const group = (key: string, messages: number, rub: number) => ({
    key,
    messages,
    parts: messages,
    statuses: { sending: messages },
    price: { RUB: rub },
    clicks: 0,
    conversions: 0,
  });
  const stats = async (query: string) => {
    const reply = await t.call('GET', `/api/v1/statistics?from=2026-03-01&to=2026-03-02&${query}`, {
      token: account.system,
    });
    expect(reply.status).toBe(200);
    return reply.body;
  };

  beforeAll(async () => {
    t = await startTestHerald(engine, { clock: new TestClock('2026-03-01T10:00:00Z') });
    account = await t.createAccount({
      senderNames: [
        ['SMS', SENDER],
        ['TELEGRAM', BOT],
      ],
      balance: 1000,
    });
    const tariff = await t.admin('POST', '/admin/v1/tariffs', { channelType: 'TELEGRAM', price: 0.5, currency: 'RUB' });
    expect(tariff.status).toBe(201);
    expect(tariff.body.channelType).toBe('TELEGRAM');
    await t.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', price: 2, currency: 'RUB' });
    telegram = await t.send(account.traffic, [
      message('TELEGRAM'),
      message('TELEGRAM', { content: { contentType: 'code', code: '123456' } }),
    ]);
    await t.send(account.traffic, [message('SMS')]);
  });
  afterAll(async () => t?.close());

  it('prices a TELEGRAM message as one part by its tariff', async () => {
    const got = await t.call('GET', `/api/v1/message/${telegram[1]}`, { token: account.traffic });
    expect(got.body.price).toMatchObject({ totalPrice: 0.5, currency: 'RUB', invoicedParts: 1 });
  });

  it('counts TELEGRAM apart and filters by it, live and rolled up', async () => {
    const expectFigures = async () => {
      expect((await stats('groupBy=channelType')).items).toEqual([group('SMS', 1, 2), group('TELEGRAM', 2, 1)]);
      expect((await stats('groupBy=day&channelType=TELEGRAM')).total).toEqual(group('total', 2, 1));
      expect((await stats('groupBy=senderName&channel_type=TELEGRAM')).items).toEqual([group(BOT, 2, 1)]);
    };
    t.clock.set('2026-03-01T12:00:00Z');
    await expectFigures();
    t.clock.set('2026-03-03T01:00:00Z');
    await rollUpStatistics(t.testDb.db, t.clock.now());
    await expectFigures();
  });

  it('lists TELEGRAM messages by channel_type', async () => {
    const list = await t.call('GET', '/api/v1/message?channel_type=TELEGRAM', { token: account.traffic });
    expect(list.body.items.map((m: { messageUuid: string }) => m.messageUuid).sort()).toEqual([...telegram].sort());
    expect(list.body.total).toBe(2);
  });
});
