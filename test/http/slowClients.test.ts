import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  loadConfig,
} from '../../src/config/config.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1000;
/** Node checks the timeouts every HEADERS_TIMEOUT_MS / 4; the rest is room for a busy machine. */
const LATE_MS = 1500;
const TIMEOUT_BODY = { error: { code: 4080, msg: 'Request timeout: the request did not arrive in time' } };

interface Cut {
  readonly status: number;
  readonly body: unknown;
  /** From the connection to its close by Herald. */
  readonly afterMs: number;
}

/**
 * A raw connection that sends `bytes` one at a time every `everyMs`; resolves with what Herald answered when Herald
 * closes it, and stops sending then.
 */
function trickle(
  url: string,
  bytes: string,
  everyMs: number,
): { socket: Socket; cut: Promise<Cut>; sent: () => number } {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  const started = performance.now();
  let sent = 0;
  const drip = setInterval(() => {
    if (sent < bytes.length && socket.writable) socket.write(bytes[sent++]!);
  }, everyMs);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const cut = new Promise<Cut>((resolve) => {
    socket.on('close', () => {
      clearInterval(drip);
      const text = Buffer.concat(chunks).toString('utf8');
      // The first answer only: a keep-alive connection may have read several.
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? 0);
      const start = text.indexOf('\r\n\r\n') + 4;
      const body = text.slice(start, start + length);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
        body: body ? JSON.parse(body) : undefined,
        afterMs: performance.now() - started,
      });
    });
  });
  return { socket, cut, sent: () => sent };
}

describe.each(ENGINES)('slow clients (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: {
        HERALD_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HERALD_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    });
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('cuts a client that sends its headers a byte at a time, with 408, while others are answered', async () => {
    const headers =
      `GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${account.traffic}\r\n` +
      `X-Slow: ${'a'.repeat(200)}\r\n\r\n`;
    const slow = trickle(t.url, headers, 20);
    let answeredMeanwhile = 0;
    const others = (async () => {
      for (let i = 0; i < 5; i++) {
        expect((await t.call('GET', '/api/v1/balance', { token: account.traffic })).status).toBe(200);
        answeredMeanwhile++;
      }
    })();
    const cut = await slow.cut;
    await others;
    expect(cut.status).toBe(408);
    expect(cut.body).toEqual(TIMEOUT_BODY);
    expect(cut.afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(cut.afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + LATE_MS);
    expect(slow.sent()).toBeLessThan(headers.length);
    expect(answeredMeanwhile).toBe(5);
  });

  it('cuts a client that connects and sends nothing', async () => {
    const silent = trickle(t.url, '', 1000);
    const cut = await silent.cut;
    expect(cut.status).toBe(408);
    expect(cut.body).toEqual(TIMEOUT_BODY);
    expect(cut.afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + LATE_MS);
  });

  it('cuts a client whose body trickles past the request timeout', async () => {
    const head =
      `POST /api/v1/message HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${account.traffic}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const slow = trickle(t.url, '', 1000);
    // The headers arrive at once; then one byte of the body every 20 ms would take 20 s.
    slow.socket.write(head);
    const drip = setInterval(() => slow.socket.writable && slow.socket.write(' '), 20);
    const cut = await slow.cut;
    clearInterval(drip);
    expect(cut.status).toBe(408);
    expect(cut.body).toEqual(TIMEOUT_BODY);
    expect(cut.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(cut.afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + LATE_MS);
    expect((await t.call('GET', '/api/v1/ping')).status).toBe(200);
  });

  it('keeps an idle keep-alive connection past the headers timeout', async () => {
    const ping = 'GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n';
    const idle = trickle(t.url, ping, 0);
    let closed = false;
    void idle.cut.then(() => (closed = true));
    await waitFor(() => idle.socket.bytesRead > 0);
    // A client opened after the idle one went quiet and never finishing its headers is cut: the headers timeout has
    // passed for the idle connection too, which is still open and answers again.
    const slow = trickle(t.url, 'GET /api/v1/ping HTTP/1.1\r\nHost: x\r\n', 0);
    expect((await slow.cut).status).toBe(408);
    expect(closed).toBe(false);
    const before = idle.socket.bytesRead;
    idle.socket.write(ping);
    await waitFor(() => idle.socket.bytesRead > before || closed);
    expect(closed).toBe(false);
    idle.socket.destroy();
  });
});

describe('request timeouts configuration', () => {
  it('defaults to 30 s for a request and 10 s for its headers', () => {
    expect(loadConfig({})).toMatchObject({
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
    });
    expect([DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS]).toEqual([30_000, 10_000]);
  });

  it('takes a short request timeout as the headers timeout too', () => {
    expect(loadConfig({ HERALD_REQUEST_TIMEOUT_MS: '2000' })).toMatchObject({
      requestTimeoutMs: 2000,
      headersTimeoutMs: 2000,
    });
  });

  it.each([
    [
      { HERALD_REQUEST_TIMEOUT_MS: '50' },
      'HERALD_REQUEST_TIMEOUT_MS: must be an integer from 100 to 3600000 (got "50")',
    ],
    [
      { HERALD_HEADERS_TIMEOUT_MS: '1s' },
      'HERALD_HEADERS_TIMEOUT_MS: must be an integer from 100 to 3600000 (got "1s")',
    ],
    [
      { HERALD_REQUEST_TIMEOUT_MS: '1000', HERALD_HEADERS_TIMEOUT_MS: '2000' },
      'HERALD_HEADERS_TIMEOUT_MS: must not exceed HERALD_REQUEST_TIMEOUT_MS (1000)',
    ],
  ])('refuses %j at start-up', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
