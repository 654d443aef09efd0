import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

describe.each(ENGINES)('FLASHCALL conversions (DESIGN 10) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let flashcall: string;
  let vk: string;

  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_CONVERSION_PORT: '0' } });
    account = await t.createAccount();
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body: [message('FLASHCALL'), message('VK')] });
    [flashcall, vk] = reply.body.items.map((i: { messageUuid: string }) => i.messageUuid);
  });
  afterAll(async () => t?.close());

  it('records results per message with item codes 201, 404 and 422', async () => {
    const reply = await t.call('POST', '/api/v1/flashcall-conversion', {
      auth: `Bearer ${account.traffic}`,
      body: [
        { messageUuid: flashcall, result: 'NUMBER_VERIFIED', code: '1234' },
        { messageUuid: vk, result: 'NUMBER_VERIFIED' },
        { messageUuid: '00000000-0000-7000-8000-000000000000', result: 'WRONG_CODE' },
        { messageUuid: flashcall, result: 'NUMBER_VERIFED' },
        { result: 'WRONG_CODE' },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      errors: true,
      items: [
        { messageUuid: flashcall, code: 201 },
        { messageUuid: vk, code: 404, msg: 'Message not found' },
        { messageUuid: '00000000-0000-7000-8000-000000000000', code: 404, msg: 'Message not found' },
        { messageUuid: flashcall, code: 422, msg: 'Invalid result: "NUMBER_VERIFED"' },
        { messageUuid: null, code: 422, msg: 'Missing messageUuid' },
      ],
    });
    const rows = await t.testDb.db.query<{ result: string; code: string }>('SELECT result, code FROM flashcall_conversions WHERE message_id = $1', [flashcall]);
    expect(rows).toEqual([{ result: 'NUMBER_VERIFIED', code: '1234' }]);
  });

  it('takes Bearer and Basic TOKEN_1, refuses TOKEN_2 and no token', async () => {
    const body = [{ messageUuid: flashcall, result: 'WRONG_CODE' }];
    expect((await t.call('POST', '/api/v1/flashcall-conversion', { token: account.traffic, body })).status).toBe(200);
    expect((await t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.system}`, body })).body.error.code).toBe(4030);
    expect((await t.call('POST', '/api/v1/flashcall-conversion', { body })).body.error.code).toBe(4010);
    expect((await t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.traffic}`, body: { x: 1 } })).status).toBe(422);
  });

  it('is also served on HERALD_CONVERSION_PORT, which serves nothing else', async () => {
    const url = t.herald.conversionUrl!;
    expect(url).not.toBe(t.url);
    const reply = await call(url, 'POST', '/api/v1/flashcall-conversion', {
      auth: `Bearer ${account.traffic}`,
      body: [{ messageUuid: flashcall, result: 'NUMBER_VERIFIED' }],
    });
    expect(reply.body).toEqual({ errors: false, items: [{ messageUuid: flashcall, code: 201 }] });
    expect((await call(url, 'POST', '/api/v1/message', { token: account.traffic, body: [message('VK')] })).status).toBe(404);
  });

  it('replays with Idempotency-Key', async () => {
    const body = [{ messageUuid: flashcall, result: 'NUMBER_VERIFIED' }];
    const headers = { 'idempotency-key': 'conv-1' };
    const before = (await t.testDb.db.query('SELECT 1 FROM flashcall_conversions')).length;
    await t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.traffic}`, body, headers });
    await t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.traffic}`, body, headers });
    expect((await t.testDb.db.query('SELECT 1 FROM flashcall_conversions')).length).toBe(before + 1);
  });
});
