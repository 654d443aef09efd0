import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AccountConcurrency, ACCOUNT_WAIT_MS, type Place } from '../../src/http/accountConcurrency.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const TOO_MANY = { status: 429, code: 4290, message: 'Too many requests; retry after 1 s', params: { retryAfter: 1 } };
/** Long enough that no wait of these tests ends by itself, however slow the machine. */
const LONG = 3_600_000;

describe('the places of an account', () => {
  it('lets `limit` requests of an account in at once, the next in order of arrival, other accounts alone', async () => {
    const places = new AccountConcurrency(2, new TestClock(), LONG);
    const first = await places.enter(1);
    const second = await places.enter(1);
    const granted: string[] = [];
    const third = places.enter(1).then((place) => (granted.push('third'), place));
    const fourth = places.enter(1).then((place) => (granted.push('fourth'), place));
    // Another account has places of its own.
    const other = await places.enter(2);
    expect(places.load(1)).toEqual({ running: 2, waiting: 2 });
    second.release();
    await third;
    expect(granted).toEqual(['third']);
    // Releasing a place twice gives back one.
    second.release();
    expect(places.load(1)).toEqual({ running: 2, waiting: 1 });
    first.release();
    (await fourth).release();
    (await third).release();
    other.release();
    expect([places.load(1), places.load(2)]).toEqual([
      { running: 0, waiting: 0 },
      { running: 0, waiting: 0 },
    ]);
  });

  it('refuses with 429 4290 (Retry-After 1) when the line is full, and when the wait ends first', async () => {
    const clock = new TestClock();
    const places = new AccountConcurrency(1, clock, ACCOUNT_WAIT_MS, 1);
    const held = await places.enter(1);
    const waiting = places.enter(1).catch((error: unknown) => error);
    await expect(places.enter(1)).rejects.toMatchObject(TOO_MANY);
    clock.advance(ACCOUNT_WAIT_MS);
    expect(await waiting).toMatchObject(TOO_MANY);
    expect(places.load(1)).toEqual({ running: 1, waiting: 0 });
    held.release();
    // The place is free again.
    (await places.enter(1)).release();
    expect(places.load(1)).toEqual({ running: 0, waiting: 0 });
  });

  it('takes a request whose client left out of the line, and never hands it a place', async () => {
    const places = new AccountConcurrency(1, new TestClock(), LONG);
    const held = await places.enter(1);
    const left = new AbortController();
    const leaving = places.enter(1, left.signal).catch((error: unknown) => error);
    const staying = places.enter(1);
    left.abort(new Error('client left'));
    expect(await leaving).toMatchObject({ message: 'client left' });
    expect(places.load(1)).toEqual({ running: 1, waiting: 1 });
    held.release();
    (await staying).release();
    expect(places.load(1)).toEqual({ running: 0, waiting: 0 });
    // Already gone when it asks: refused at once.
    const gone = new AbortController();
    gone.abort(new Error('gone'));
    const blocker = await places.enter(1);
    await expect(places.enter(1, gone.signal)).rejects.toMatchObject({ message: 'gone' });
    blocker.release();
  });

  it('limits nothing at 0', async () => {
    const places = new AccountConcurrency(0, new TestClock(), LONG);
    const taken: Place[] = await Promise.all(Array.from({ length: 100 }, () => places.enter(1)));
    taken.forEach((place) => place.release());
    expect(places.load(1)).toEqual({ running: 0, waiting: 0 });
  });
});

/**
 * Opens a send of the account's whose body is still coming, on a connection of its own kept open: authenticated, it
 * holds one of the account's places until the connection goes.
 */
async function openSend(url: string, traffic: string): Promise<Socket> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /api/v1/message HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${traffic}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n[`,
  );
  return socket;
}

describe.each(ENGINES)('the places of an account over HTTP (%s)', (engine) => {
  const withHerald = async (test: (t: TestHerald) => Promise<void>) => {
    const t = await startTestHerald(engine, { env: { HERALD_ACCOUNT_CONCURRENCY: '1' } });
    try {
      await test(t);
    } finally {
      await t.close();
    }
  };

  it('holds the place while a request is under way; a client that leaves gives it back', () =>
    withHerald(async (t) => {
      const account = await t.createAccount();
      const other = await t.createAccount();
      const places = t.herald.ctx.limits.concurrency;
      // Authenticated, its body not all sent: the request holds the account's one place.
      const pending = await openSend(t.url, account.traffic);
      await waitFor(() => places.load(account.id).running === 1);
      // Another account is not held up.
      expect((await t.call('GET', '/api/v1/balance', { token: other.system })).status).toBe(200);
      const waiting = t.call('GET', '/api/v1/balance', { token: account.system });
      await waitFor(() => places.load(account.id).waiting === 1);
      pending.destroy();
      expect((await waiting).status).toBe(200);
      await waitFor(() => places.load(account.id).running === 0);
    }));

  it('answers 429 4290 with Retry-After to a request whose wait for a place ends', () =>
    withHerald(async (t) => {
      const account = await t.createAccount();
      const places = t.herald.ctx.limits.concurrency;
      const pending = await openSend(t.url, account.traffic);
      await waitFor(() => places.load(account.id).running === 1);
      const waiting = t.call('GET', '/api/v1/balance', { token: account.system });
      await waitFor(() => places.load(account.id).waiting === 1);
      t.clock.advance(ACCOUNT_WAIT_MS);
      const refused = await waiting;
      expect([refused.status, refused.body, refused.headers.get('retry-after')]).toEqual([
        429,
        { error: { code: 4290, msg: 'Too many requests; retry after 1 s' } },
        '1',
      ]);
      pending.destroy();
      await waitFor(() => places.load(account.id).running === 0);
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/^herald_rate_limited_total\{kind="account_concurrency"\} [1-9]/m);
    }));

  it('gives the place back after a refusal before the handler, an error of the handler, and a success', () =>
    withHerald(async (t) => {
      const account = await t.createAccount({ senderNames: [['SMS', 'Places']] });
      const places = t.herald.ctx.limits.concurrency;
      const answers = [
        // Refused by the body's schema (the handler never runs).
        await t.call('POST', '/api/v1/message', { token: account.traffic, body: {} }),
        // Not JSON: refused by the parser.
        await t.call('POST', '/api/v1/message', {
          token: account.traffic,
          rawBody: '[',
          headers: { 'content-type': 'application/json' },
        }),
        // Thrown by the handler.
        await t.call('GET', '/api/v1/message/0190b3c0-0000-7000-8000-000000000000', { token: account.traffic }),
        await t.call('GET', '/api/v1/balance', { token: account.system }),
      ];
      expect(answers.map((reply) => reply.status)).toEqual([422, 400, 404, 200]);
      // With one place, each of these went in at once: none was left held.
      await waitFor(() => places.load(account.id).running === 0);
      const concurrent = await Promise.all(
        Array.from({ length: 6 }, () => t.call('GET', '/api/v1/balance', { token: account.system })),
      );
      expect(concurrent.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200]);
      await waitFor(() => places.load(account.id).running === 0);
    }));
});
