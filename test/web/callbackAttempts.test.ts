import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const SLOW_MS = 150;

describe.each(ENGINES)("a message's callback deliveries and attempts, for the message page (%s)", (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Server;
  let url: string;
  let requests = 0;

  beforeAll(async () => {
    // Answers the first POST slowly with 503, the next at once with 200: two attempts with different latencies.
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const first = requests++ === 0;
        setTimeout(() => res.writeHead(first ? 503 : 200).end(), first ? SLOW_MS : 0);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: {
        HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
        HERALD_CALLBACK_RETRY_INTERVAL: '1',
        HERALD_CALLBACK_RETRY_WINDOW: '60',
      },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('lists the deliveries of one message, each with every attempt: time, HTTP status, error, latency', async () => {
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { destination: '79161230001', callbackUrl: url })],
    });
    const id = sent.body.items[0].messageUuid as string;
    const list = await waitFor(async () => {
      const reply = await t.call('GET', `/api/v1/callbacks?message_uuid=${id}`, { token: account.system });
      return reply.body.items?.[0]?.state === 'delivered' ? reply.body : undefined;
    });
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      state: 'delivered',
      attempts: 2,
      events: 1,
      lastHttpStatus: 200,
      lastError: null,
      url,
    });

    const detail = await t.call('GET', `/api/v1/callbacks/${list.items[0].id}`, { token: account.system });
    expect(detail.status).toBe(200);
    expect(detail.body.body[0]).toMatchObject({ message_uuid: id, callback_event: 'delivered' });
    const [failed, delivered] = detail.body.attemptsLog;
    expect(detail.body.attemptsLog).toHaveLength(2);
    expect(failed).toEqual({
      time: expect.stringMatching(ISO),
      httpStatus: 503,
      latencyMs: expect.any(Number),
      error: 'HTTP 503',
    });
    expect(failed.latencyMs).toBeGreaterThanOrEqual(SLOW_MS - 5);
    expect(delivered).toEqual({
      time: expect.stringMatching(ISO),
      httpStatus: 200,
      latencyMs: expect.any(Number),
      error: null,
    });
    expect(delivered.latencyMs).toBeLessThan(failed.latencyMs);

    // Another message's deliveries are not listed under this one; TOKEN_1 is refused.
    const unrelated = await t.call('GET', '/api/v1/callbacks?message_uuid=01980000-0000-7000-8000-000000000000', {
      token: account.system,
    });
    expect(unrelated.body.items).toEqual([]);
    expect((await t.call('GET', `/api/v1/callbacks/${list.items[0].id}`, { token: account.traffic })).status).toBe(403);
  });
});
