import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

// What the personal account's pages ask of the API for issue 34: the message list filtered by error code (problem 2)
// and the parts and price of messages before they are sent (problems 4 and 6).
describe.each(ENGINES)('the client API behind the cost and error pages (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const now = new Date('2026-03-10T09:00:00Z');

  beforeAll(async () => {
    t = await startTestHerald(engine, { clock: new TestClock(now) });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 1000 });
    const tariff = (body: Record<string, unknown>) =>
      t.admin('POST', '/admin/v1/tariffs', { accountId: account.id, channelType: 'SMS', currency: 'RUB', ...body });
    expect((await tariff({ price: 2.5 })).status).toBe(201);
    expect((await tariff({ prefix: '7916', price: 1.25 })).status).toBe(201);
  });
  afterAll(async () => t?.close());

  const list = (query: string) => t.call('GET', `/api/v1/message?${query}`, { token: account.traffic });

  describe('GET /api/v1/message?error_code=', () => {
    let stopped: string[];
    let waiting: string;

    beforeAll(async () => {
      // Nothing delivers in this Herald (no workers): stopped messages are unsent with 9003, the others wait.
      const uuids = await t.send(account.traffic, [
        message('SMS', { destination: '79161230001' }),
        message('SMS', { destination: '79161230002' }),
        message('SMS', { destination: '79161230003' }),
      ]);
      stopped = uuids.slice(0, 2);
      waiting = uuids[2]!;
      const stop = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: stopped } });
      expect(stop.body.items.map((i: { code: number }) => i.code)).toEqual([200, 200]);
    });

    it('lists only the messages with that code, with an exact total', async () => {
      const reply = await list('error_code=9003&time_from=2026-03-01 00:00:00&time_to=2026-03-10 23:59:59');
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(2);
      expect(reply.body.items.map((m: { messageUuid: string }) => m.messageUuid).sort()).toEqual([...stopped].sort());
      expect(reply.body.items.every((m: { errorCode: number }) => m.errorCode === 9003)).toBe(true);
      const none = await list('error_code=9005&time_from=2026-03-01T00:00:00Z&time_to=2026-03-10T23:59:59Z');
      expect(none.body).toMatchObject({ items: [], total: 0 });
    });

    it('reads a key without a range: one destination', async () => {
      const reply = await list('error_code=9003&destination=79161230001');
      expect(reply.status).toBe(200);
      expect(reply.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([stopped[0]]);
      const other = await list(`error_code=9003&message_uuid=${waiting}`);
      expect(other.body.total).toBe(0);
    });

    it('refuses a filter that would read the whole history, and a code that is no number, with 4220', async () => {
      for (const query of [
        'error_code=9003',
        'error_code=9003&time_from=2026-03-01 00:00:00',
        'error_code=9003&time_from=2026-01-01 00:00:00&time_to=2026-03-10 00:00:00',
      ]) {
        const reply = await list(query);
        expect(reply.status, query).toBe(422);
        expect(reply.body.error.code).toBe(4220);
        expect(reply.body.error.msg).toMatch(/^Invalid error_code: needs time_from and time_to at most 31 days apart/);
      }
      for (const query of ['error_code=abc', 'error_code=-1', 'error_code=1e20']) {
        const reply = await list(`${query}&time_from=2026-03-01 00:00:00&time_to=2026-03-10 00:00:00`);
        expect(reply.status, query).toBe(422);
        expect(reply.body.error.code).toBe(4220);
      }
    });
  });

  describe('POST /api/v1/message/estimate', () => {
    const estimate = (body: unknown, token = account.traffic) =>
      t.call('POST', '/api/v1/message/estimate', { token, body });

    it('counts SMS parts by the real rules and prices them by the longest prefix of the tariffs', async () => {
      const gsm160 = 'a'.repeat(160);
      const extension = `${'a'.repeat(158)}{`; // 158 + 2 septets: 160, still one part
      const extensionOver = `${'a'.repeat(159)}€`; // 161 septets: two parts of 153
      const cyrillic70 = 'я'.repeat(70);
      const reply = await estimate({
        channelType: 'SMS',
        items: [
          { destination: '79161234567', text: gsm160 },
          { destination: '+7 (926) 123-45-67', text: extension },
          { destination: '79261234567', text: extensionOver },
          { destination: '79161234567', text: cyrillic70 },
          { destination: '79161234567', text: 'я'.repeat(71) },
          { destination: '79161234567', text: 'С наступающим, !' },
        ],
      });
      expect(reply.status).toBe(200);
      const figures = reply.body.items.map((i: any) => [i.parts, i.encoding, i.characters, i.partCapacity, i.price]);
      expect(figures).toEqual([
        [1, 'gsm7', 160, 160, 1.25],
        [1, 'gsm7', 160, 160, 2.5],
        [2, 'gsm7', 161, 153, 5],
        [1, 'ucs2', 70, 70, 1.25],
        [2, 'ucs2', 71, 67, 2.5],
        [1, 'ucs2', 16, 70, 1.25],
      ]);
      expect(reply.body.items[0]).toMatchObject({ destination: '79161234567', pricePerPart: 1.25, currency: 'RUB' });
      expect(reply.body.total).toEqual({ parts: 8, price: { RUB: 13.75 }, unpriced: 0, refused: 0 });
    });

    it('answers an item that could not be sent with the code a send gives it, and stores nothing', async () => {
      const before = await list('time_from=2026-03-01 00:00:00');
      const reply = await estimate(
        {
          channelType: 'SMS',
          items: [
            { destination: 'not a number', text: 'Hi' },
            { destination: '79161234567', text: '' },
            { destination: '79161234567', text: 'Hi' },
          ],
        },
        account.system,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.items[0]).toEqual({ destination: 'not a number', errorCode: 4220, msg: 'Invalid msisdn' });
      expect(reply.body.items[1]).toMatchObject({ errorCode: 4220 });
      expect(reply.body.total).toEqual({ parts: 1, price: { RUB: 1.25 }, unpriced: 0, refused: 2 });
      const after = await list('time_from=2026-03-01 00:00:00');
      expect(after.body.total).toBe(before.body.total);
    });

    it('prices another channel as one part, and says when no tariff applies', async () => {
      const reply = await estimate({ channelType: 'VK', items: [{ destination: '79161234567' }] });
      expect(reply.body.items[0]).toEqual({
        destination: '79161234567',
        parts: 1,
        encoding: null,
        characters: null,
        partCapacity: null,
        pricePerPart: null,
        price: null,
        currency: null,
      });
      expect(reply.body.total).toEqual({ parts: 1, price: {}, unpriced: 1, refused: 0 });
      const partsOnly = await estimate({ channelType: 'SMS', items: [{ text: 'Привет' }] });
      expect(partsOnly.body.items[0]).toMatchObject({ destination: null, parts: 1, encoding: 'ucs2', price: null });
      expect(partsOnly.body.total.unpriced).toBe(1);
    });

    it('refuses a malformed body with 4220 and no token with 4010', async () => {
      for (const body of [
        {},
        { channelType: 'SMS', items: [] },
        { channelType: 'FAX', items: [{ destination: '1' }] },
      ]) {
        const reply = await estimate(body);
        expect(reply.status, JSON.stringify(body)).toBe(422);
        expect(reply.body.error.code).toBe(4220);
      }
      const anonymous = await t.call('POST', '/api/v1/message/estimate', {
        body: { channelType: 'SMS', items: [{ destination: '79161234567', text: 'Hi' }] },
      });
      expect(anonymous.status).toBe(401);
    });
  });
});
