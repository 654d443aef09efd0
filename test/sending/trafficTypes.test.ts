import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/** Traffic types on messages (DESIGN 14): defaults, validation, the message object, the list and statistics. */
describe.each(ENGINES)('traffic types (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const get = async (id: string) => (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body;

  it('gives FLASHCALL and VOICECODE messages AUTHORIZE, others SERVICE, unless the message says', async () => {
    const [flashcall, voicecode, sms, promo] = await t.send(account.traffic, [
      message('FLASHCALL'),
      message('VOICECODE'),
      message('SMS'),
      message('SMS', { trafficType: 'PROMO' }),
    ]);
    expect((await get(flashcall!)).trafficType).toBe('AUTHORIZE');
    expect((await get(voicecode!)).trafficType).toBe('AUTHORIZE');
    expect((await get(sms!)).trafficType).toBe('SERVICE');
    expect((await get(promo!)).trafficType).toBe('PROMO');
  });

  it('refuses an unknown traffic type with 422 and its index', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS'), message('FLASHCALL', { trafficType: 'bulk' })],
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ error: { code: 4220, msg: 'Invalid trafficType: "bulk"', index: 1 } });
  });

  it('lists by traffic type and groups the statistics by it', async () => {
    const other = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    await t.send(other.traffic, [
      message('SMS', { trafficType: 'TRANSACT' }),
      message('SMS', { trafficType: 'TRANSACT' }),
      message('SMS'),
      message('FLASHCALL'),
    ]);
    const list = await t.call('GET', '/api/v1/message?traffic_type=TRANSACT', { token: other.traffic });
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((m: { trafficType: string }) => m.trafficType)).toEqual(['TRANSACT', 'TRANSACT']);
    const stats = await t.call('GET', '/api/v1/statistics?groupBy=trafficType&from=2026-03-01&to=2026-03-12', {
      token: other.system,
    });
    expect(stats.body.items.map((g: { key: string; messages: number }) => [g.key, g.messages])).toEqual([
      ['AUTHORIZE', 1],
      ['SERVICE', 1],
      ['TRANSACT', 2],
    ]);
    const bad = await t.call('GET', '/api/v1/message?traffic_type=BULK', { token: other.traffic });
    expect(bad.status).toBe(422);
  });
});
