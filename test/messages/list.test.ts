import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from './messageFixtures.js';

describe.each(ENGINES)('GET /api/v1/message and GET /api/v1/message/{uuid} (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let other: TestAccount;
  const ids: string[] = [];
  const list = (query: string, token = account.traffic) => t.call('GET', `/api/v1/message${query}`, { token });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    other = await t.createAccount();
    // Three batches a minute apart: 09:00, 09:01, 09:02.
    for (const [i, body] of [
      [message('SMS', { destination: '79161234501', content: 'alpha one', tags: ['promo'] }), message('VK', { destination: '79161234502', content: 'beta' })],
      [message('SMS', { destination: '79161234503', content: 'gamma', tags: ['otp', 'x'] })],
      [message('VK', { destination: '+7 916 123-45-01', content: 'alpha two' })],
    ].entries()) {
      const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
      ids.push(...reply.body.items.map((item: { messageUuid: string }) => item.messageUuid));
      t.clock.advance(60_000);
      void i;
    }
    await t.call('POST', '/api/v1/message', { token: other.traffic, body: [message('VK', { content: 'not mine' })] });
  });
  afterAll(async () => t?.close());

  it('lists the account messages newest first, with pagination', async () => {
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, per_page: 100, total: 4 });
    expect(all.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([...ids].reverse());
    const page2 = await list('?per_page=3&page=2');
    expect(page2.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([ids[0]]);
    const oldest = await list('?sort=created_time&per_page=1');
    expect(oldest.body.items[0].messageUuid).toBe(ids[0]);
  });

  it.each([
    ['?channel_type=VK', [1, 3]],
    ['?destination=89161234501', [0, 3]],
    ['?tags=otp', [2]],
    ['?tags=promo,otp', [0, 2]],
    ['?content=alpha', [0, 3]],
    ['?sender_name=Herald', [0, 2]],
    ['?status=sending', [0, 1, 2, 3]],
    ['?status=delivered', []],
    ['?direction=outbound', [0, 1, 2, 3]],
    ['?time_from=2026-03-10T09:01:00Z', [2, 3]],
    ['?time_to=2026-03-10 09:00:59', [0, 1]],
    ['?time_from=2026-03-10T09:01:00Z&time_to=2026-03-10T09:01:59Z', [2]],
  ])('filters %s', async (query, expected) => {
    const reply = await list(query);
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((m: { messageUuid: string }) => m.messageUuid).sort()).toEqual(expected.map((i) => ids[i]).sort());
    expect(reply.body.total).toBe(expected.length);
  });

  it('filters by message_uuid', async () => {
    const reply = await list(`?message_uuid=${ids[2]}`);
    expect(reply.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([ids[2]]);
  });

  it.each([
    ['?per_page=1000&page=11', 'Invalid page: 11 (page * per_page may not exceed 10000; narrow time_from/time_to)'],
    ['?per_page=1001', null],
    ['?page=0', null],
    ['?status=lost', null],
    ['?time_from=yesterday', 'Invalid time_from: "yesterday"'],
    ['?destination=12', 'Invalid msisdn'],
    ['?message_uuid=abc', 'Invalid message_uuid: "abc"'],
  ])('refuses %s with 422', async (query, msg) => {
    const reply = await list(query);
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe(4220);
    if (msg) expect(reply.body.error.msg).toBe(msg);
  });

  it('returns one message object with the fields of DESIGN 4', async () => {
    const reply = await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.traffic });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      messageUuid: ids[0],
      createdTime: '2026-03-10T09:00:00Z',
      channelType: 'SMS',
      sendingMethod: 'API',
      senderName: 'Herald',
      destination: '79161234501',
      country: 'RU',
      region: 'Город Москва, Московская область',
      brand: 'МТС',
      content: 'alpha one',
      tags: ['promo'],
      useLocalTime: true,
      totalParts: 1,
      plannedSendTime: '2026-03-10T09:00:00Z',
      status: 'sending',
      direction: 'outbound',
      errorCode: null,
    });
    for (const field of ['trafficType', 'templateId', 'trafficCenterId', 'externalMessageId', 'ttl', 'hours', 'days', 'localSendTime', 'localCompletionTime', 'callbackUrl', 'callbackEvents', 'price', 'sentTime', 'statusTime', 'readStatus', 'cascadeMessageUuid', 'cascadeStep', 'statusHistory']) {
      expect(reply.body).toHaveProperty(field);
    }
  });

  it('masks callback credentials', async () => {
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('VK', { callbackUrl: 'https://user:secret@example.com/cb' })],
    });
    const reply = await t.call('GET', `/api/v1/message/${sent.body.items[0].messageUuid}`, { token: account.traffic });
    expect(reply.body.callbackUrl).toBe('https://user:***@example.com/cb');
    expect(JSON.stringify(reply.body)).not.toContain('secret');
  });

  it("does not show another account's message, nor with a system token", async () => {
    expect((await t.call('GET', `/api/v1/message/${ids[0]}`, { token: other.traffic })).status).toBe(404);
    expect((await t.call('GET', '/api/v1/message/not-a-uuid', { token: account.traffic })).status).toBe(404);
    expect((await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.system })).body.error.code).toBe(4030);
    expect((await list('', other.traffic)).body.total).toBe(1);
  });
});
