import { logSink } from '../helpers/logs.js';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyCallbackSignature } from '../../src/callbacks/signing.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe.each(ENGINES)('callbacks (spec 6, DESIGN 5) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;
  const logLines: string[] = [];

  const send = (body: Record<string, unknown>[]): Promise<string[]> => t.send(account.traffic, body);
  const eventsFor = (id: string) => receiver.events().filter((e) => e.message_uuid === id);

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: {
        HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
        HERALD_CALLBACK_RETRY_INTERVAL: '1',
        HERALD_CALLBACK_RETRY_WINDOW: '3',
        HERALD_LOG_LEVEL: 'info',
      },
      log: pino(
        { level: 'info' },
        logSink((line) => logLines.push(line)),
      ),
    });
    account = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
      ],
    });
  });
  afterAll(async () => t?.close());
  beforeAll(async () => {
    receiver = await new Receiver().start();
  });
  afterEach(() => {
    receiver.received.length = 0;
    receiver.answer = () => 200;
  });
  afterAll(async () => receiver?.stop());

  it('sends exactly the bodies of spec 6.2 and 6.3, only the requested events, in status order', async () => {
    const [id] = await send([
      message('SMS', {
        destination: '79161232220',
        callbackUrl: receiver.url,
        callbackEvents: ['sent', 'delivered', 'price'],
      }),
    ]);
    await untilCallbackRound(t.herald, () => eventsFor(id!).length === 4);
    const [price, sent, finalPrice, delivered] = eventsFor(id!);
    // A free message's price is 0 in the account's currency; it is reserved, then final when sent (DESIGN 12).
    const priceEvent = {
      message_uuid: id,
      channel_type: 'SMS',
      callback_event: 'price',
      parts: 1,
      price: 0,
      currency: 'RUB',
      price_time: expect.stringMatching(ISO),
    };
    expect(price).toEqual(priceEvent);
    expect(sent).toEqual({
      message_uuid: id,
      channel_type: 'SMS',
      callback_event: 'sent',
      status: 'sent',
      status_time: expect.stringMatching(ISO),
    });
    expect(finalPrice).toEqual(priceEvent);
    expect(delivered).toEqual({
      message_uuid: id,
      channel_type: 'SMS',
      callback_event: 'delivered',
      status: 'delivered',
      status_time: expect.stringMatching(ISO),
    });
  });

  it('sends only `delivered` when callbackEvents is absent, with error_code for a failure', async () => {
    const ids = await send([
      message('SMS', { destination: '79161232230', callbackUrl: receiver.url }),
      message('SMS', { destination: '79161232237', callbackUrl: receiver.url }),
      message('SMS', { destination: '79161232238', callbackUrl: receiver.url }),
    ]);
    await untilCallbackRound(t.herald, () => ids.every((id) => eventsFor(id).length === 1));
    expect(eventsFor(ids[0]!)[0]).toMatchObject({ callback_event: 'delivered', status: 'delivered' });
    expect(eventsFor(ids[1]!)[0]).toMatchObject({ callback_event: 'delivered', status: 'undelivered', error_code: 1 });
    expect(eventsFor(ids[2]!)[0]).toMatchObject({ callback_event: 'delivered', status: 'unsent', error_code: 11 });
    expect(eventsFor(ids[0]!)[0]).not.toHaveProperty('error_code');
  });

  it('reports reads with the read event', async () => {
    const [id] = await send([
      message('WHATSAPP', { destination: '79161232240', callbackUrl: receiver.url, callbackEvents: ['read'] }),
    ]);
    await untilCallbackRound(t.herald, () => eventsFor(id!).length === 1);
    expect(eventsFor(id!)[0]).toEqual({
      message_uuid: id,
      channel_type: 'WHATSAPP',
      callback_event: 'read',
      status: 'read',
      status_time: expect.stringMatching(ISO),
    });
  });

  it('batches up to 100 events per POST, keeping each message in status order', async () => {
    const body = Array.from({ length: 250 }, (_, i) =>
      message('SMS', {
        destination: `7916223${String(i).padStart(3, '0')}0`,
        callbackUrl: receiver.url,
        callbackEvents: ['sent', 'delivered'],
      }),
    );
    const ids = await send(body);
    await untilCallbackRound(t.herald, () => receiver.events().length === 500, { timeoutMs: 30_000 });
    for (const request of receiver.received) {
      expect(Array.isArray(request.body)).toBe(true);
      expect(request.body.length).toBeLessThanOrEqual(100);
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(receiver.received.length).toBeLessThan(250);
    for (const id of ids) expect(eventsFor(id).map((e) => e.callback_event)).toEqual(['sent', 'delivered']);
  });

  it('retries a receiver that fails twice with the same delivery id and events, then stops', async () => {
    receiver.answer = (_r, i) => (i < 2 ? 503 : 200);
    const [id] = await send([message('SMS', { destination: '79161232250', callbackUrl: receiver.url })]);
    await untilCallbackRound(t.herald, () => receiver.received.length === 3, { timeoutMs: 15_000 });
    const [a, b, c] = receiver.received;
    expect(a!.headers['x-herald-delivery']).toBeDefined();
    expect(b!.headers['x-herald-delivery']).toBe(a!.headers['x-herald-delivery']);
    expect(c!.headers['x-herald-delivery']).toBe(a!.headers['x-herald-delivery']);
    expect(b!.raw).toBe(a!.raw);
    expect(c!.raw).toBe(a!.raw);
    // Retried on schedule: about one retry interval (1 s) apart.
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(900);
    expect(c!.at - b!.at).toBeGreaterThanOrEqual(900);
    const deliveryId = String(a!.headers['x-herald-delivery']);
    // The third attempt is recorded once the receiver has answered it.
    const detail = await untilCallbackRound(t.herald, async () => {
      const reply = await t.call('GET', `/api/v1/callbacks/${deliveryId}`, { token: account.system });
      return reply.body.state === 'delivered' && reply;
    });
    expect(detail.body).toMatchObject({
      id: deliveryId,
      state: 'delivered',
      attempts: 3,
      events: 1,
      lastHttpStatus: 200,
    });
    expect(detail.body.attemptsLog.map((x: { httpStatus: number }) => x.httpStatus)).toEqual([503, 503, 200]);
    expect(detail.body.body[0].message_uuid).toBe(id);
    // Past the whole retry window nothing more comes for it: a later message's callback arrives alone.
    t.clock.advance(10_000);
    const [later] = await send([message('SMS', { destination: '79161232251', callbackUrl: receiver.url })]);
    await untilCallbackRound(t.herald, () => eventsFor(later!).length === 1);
    expect(receiver.received.filter((r) => r.headers['x-herald-delivery'] === deliveryId)).toHaveLength(3);
    expect(receiver.received).toHaveLength(4);
  });

  it('marks a delivery failed after the retry window when the receiver never answers, and replays it', async () => {
    receiver.answer = () => 'hang';
    const [id] = await send([message('SMS', { destination: '79161232260', callbackUrl: receiver.url })]);
    const failed = await untilCallbackRound(
      t.herald,
      async () => {
        const list = await t.call('GET', '/api/v1/callbacks?state=failed', { token: account.system });
        return list.body.items.find(
          (d: { id: string }) => d.id === String(receiver.received[0]?.headers['x-herald-delivery']),
        ) as { id: string; attempts: number } | undefined;
      },
      { timeoutMs: 40_000 },
    );
    // First attempt, then retries every second while the 3-second window lasts; each attempt waits out the timeout.
    expect(failed.attempts).toBeGreaterThanOrEqual(2);
    const attempts = receiver.received.length;
    receiver.answer = () => 200;
    const replay = await t.call('POST', '/api/v1/callbacks/replay', {
      token: account.system,
      body: { ids: [failed.id, '00000000-0000-4000-8000-000000000000'] },
    });
    expect(replay.body.items).toEqual([
      { id: failed.id, code: 200 },
      { id: '00000000-0000-4000-8000-000000000000', code: 409 },
    ]);
    await untilCallbackRound(
      t.herald,
      () => receiver.received.length > attempts && receiver.received.at(-1)!.headers['x-herald-delivery'] === failed.id,
    );
    expect(receiver.received.at(-1)!.body[0].message_uuid).toBe(id);
    await untilCallbackRound(
      t.herald,
      async () =>
        (await t.call('GET', `/api/v1/callbacks/${failed.id}`, { token: account.system })).body.state === 'delivered',
    );
  }, 60_000);

  it('signs every POST so that the receiver can verify it with the account secret, also after rotation', async () => {
    const secret = (await t.call('GET', '/api/v1/callback-secret', { token: account.system })).body.secret;
    const [id] = await send([message('SMS', { destination: '79161232270', callbackUrl: receiver.url })]);
    await untilCallbackRound(t.herald, () => eventsFor(id!).length === 1);
    const request = receiver.received.find((r) => r.body?.[0]?.message_uuid === id)!;
    const header = String(request.headers['x-herald-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const now = Number(/t=(\d+)/.exec(header)![1]);
    expect(verifyCallbackSignature(secret, request.raw, header, now)).toBe(true);
    expect(verifyCallbackSignature(secret, `${request.raw} `, header, now)).toBe(false);

    const rotated = (await t.call('POST', '/api/v1/callback-secret/rotate', { token: account.system })).body.secret;
    expect(rotated).not.toBe(secret);
    const [second] = await send([message('SMS', { destination: '79161232280', callbackUrl: receiver.url })]);
    await untilCallbackRound(t.herald, () => eventsFor(second!).length === 1);
    const next = receiver.received.find((r) => r.body?.[0]?.message_uuid === second)!;
    const nextHeader = String(next.headers['x-herald-signature']);
    const nextNow = Number(/t=(\d+)/.exec(nextHeader)![1]);
    expect(verifyCallbackSignature(rotated, next.raw, nextHeader, nextNow)).toBe(true);
    expect(verifyCallbackSignature(secret, next.raw, nextHeader, nextNow)).toBe(false);
    expect((await t.call('GET', '/api/v1/callback-secret', { token: account.traffic })).status).toBe(403);
  });

  it('sends URL credentials as Basic authorization and never writes them to a log', async () => {
    receiver.answer = (_r, i) => (i === 0 ? 500 : 200);
    const url = `http://hook-user:pa55-word-xyz@127.0.0.1:${receiver.port}/callbacks`;
    const [id] = await send([message('SMS', { destination: '79161232290', callbackUrl: url })]);
    await untilCallbackRound(t.herald, () => eventsFor(id!).length >= 1, { timeoutMs: 10_000 });
    expect(receiver.received[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('hook-user:pa55-word-xyz').toString('base64')}`,
    );
    expect(logLines.some((line) => line.includes('callback not accepted'))).toBe(true);
    expect(logLines.join('\n')).not.toContain('pa55-word-xyz');
    const object = await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic });
    expect(object.body.callbackUrl).toBe(`http://hook-user:***@127.0.0.1:${receiver.port}/callbacks`);
  });
});
