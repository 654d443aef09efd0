import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpStatistics } from '../../src/statistics/rollup.js';
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
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('FLASHCALL'), message('VK')],
    });
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
    const rows = await t.testDb.db.query<{ result: string; code: string }>(
      'SELECT result, code FROM flashcall_conversions WHERE message_id = $1',
      [flashcall],
    );
    expect(rows).toEqual([{ result: 'NUMBER_VERIFIED', code: '1234' }]);
  });

  it('takes Bearer and Basic TOKEN_1, refuses TOKEN_2 and no token', async () => {
    const body = [{ messageUuid: flashcall, result: 'WRONG_CODE' }];
    expect((await t.call('POST', '/api/v1/flashcall-conversion', { token: account.traffic, body })).status).toBe(200);
    expect(
      (await t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.system}`, body })).body.error
        .code,
    ).toBe(4030);
    expect((await t.call('POST', '/api/v1/flashcall-conversion', { body })).body.error.code).toBe(4010);
    expect(
      (await t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.traffic}`, body: { x: 1 } }))
        .status,
    ).toBe(422);
  });

  it('is also served on HERALD_CONVERSION_PORT, which serves nothing else', async () => {
    const url = t.herald.conversionUrl!;
    expect(url).not.toBe(t.url);
    const reply = await call(url, 'POST', '/api/v1/flashcall-conversion', {
      auth: `Bearer ${account.traffic}`,
      body: [{ messageUuid: flashcall, result: 'NUMBER_VERIFIED' }],
    });
    expect(reply.body).toEqual({ errors: false, items: [{ messageUuid: flashcall, code: 201 }] });
    expect((await call(url, 'POST', '/api/v1/message', { token: account.traffic, body: [message('VK')] })).status).toBe(
      404,
    );
  });

  const conversionOf = (id: string) =>
    t.testDb.db.query('SELECT result, code FROM flashcall_conversions WHERE message_id = $1', [id]);

  it('replays with Idempotency-Key', async () => {
    const report = (body: unknown, headers: Record<string, string> = {}) =>
      t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${account.traffic}`, body, headers });
    const body = [{ messageUuid: flashcall, result: 'WRONG_CODE', code: '1111' }];
    const headers = { 'idempotency-key': 'conv-1' };
    await report(body, headers);
    expect(await conversionOf(flashcall)).toEqual([{ result: 'WRONG_CODE', code: '1111' }]);
    await report([{ messageUuid: flashcall, result: 'NUMBER_VERIFIED', code: '2222' }]);
    // The replay answers as before and writes nothing: the later report stays.
    const replay = await report(body, headers);
    expect(replay.body).toEqual({ errors: false, items: [{ messageUuid: flashcall, code: 201 }] });
    expect(await conversionOf(flashcall)).toEqual([{ result: 'NUMBER_VERIFIED', code: '2222' }]);
  });

  it('takes the spelling NUMBER_VERIFIERD of the field table, stored as NUMBER_VERIFIED (DESIGN 12)', async () => {
    const reply = await t.call('POST', '/api/v1/flashcall-conversion', {
      auth: `Bearer ${account.traffic}`,
      body: [{ messageUuid: flashcall, result: 'NUMBER_VERIFIERD', code: '3333' }],
    });
    expect(reply.body).toEqual({ errors: false, items: [{ messageUuid: flashcall, code: 201 }] });
    expect(await conversionOf(flashcall)).toEqual([{ result: 'NUMBER_VERIFIED', code: '3333' }]);
  });

  it('keeps one conversion per message: a later report replaces the earlier, counted once (DESIGN 12)', async () => {
    const own = await t.createAccount();
    const body = [message('FLASHCALL'), message('FLASHCALL')];
    const sent = await t.call('POST', '/api/v1/message', { token: own.traffic, body });
    const [first, second] = sent.body.items.map((i: { messageUuid: string }) => i.messageUuid as string);
    const report = (items: unknown) =>
      t.call('POST', '/api/v1/flashcall-conversion', { auth: `Bearer ${own.traffic}`, body: items });
    const conversions = async () => {
      const reply = await t.call('GET', '/api/v1/statistics?from=2026-03-10&to=2026-03-11', { token: own.system });
      return reply.body.total.conversions as number;
    };
    const rows = () =>
      t.testDb.db.query(
        'SELECT message_id, result, code FROM flashcall_conversions WHERE account_id = $1 ORDER BY code',
        [own.id],
      );

    expect((await report([{ messageUuid: first, result: 'WRONG_CODE', code: '1' }])).body.errors).toBe(false);
    expect((await report([{ messageUuid: first, result: 'NUMBER_VERIFIED', code: '2' }])).body.errors).toBe(false);
    // Two reports for one message in one request: the later one stands.
    const upper = second!.toUpperCase();
    const both = await report([
      { messageUuid: second, result: 'NUMBER_VERIFIED', code: '3' },
      { messageUuid: upper, result: 'WRONG_CODE', code: '4' },
    ]);
    expect(both.body.items).toEqual([
      { messageUuid: second, code: 201 },
      { messageUuid: upper, code: 201 },
    ]);
    expect(await rows()).toEqual([
      { message_id: first, result: 'NUMBER_VERIFIED', code: '2' },
      { message_id: second, result: 'WRONG_CODE', code: '4' },
    ]);
    expect(await conversions()).toBe(2);

    // The same from the daily rollup, and after a report on a day already rolled up.
    const now = t.clock.now();
    t.clock.set('2026-03-13T09:00:00Z');
    try {
      await rollUpStatistics(t.testDb.db, t.clock.now());
      expect(await conversions()).toBe(2);
      await report([{ messageUuid: first, result: 'WRONG_CODE', code: '5' }]);
      expect(await conversions()).toBe(2);
      await rollUpStatistics(t.testDb.db, t.clock.now());
      expect(await conversions()).toBe(2);
    } finally {
      t.clock.set(now.toISOString());
    }
  });
});
