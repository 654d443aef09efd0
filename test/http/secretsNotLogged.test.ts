import { connect } from 'node:net';
import { logSink } from '../helpers/logs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { ADMIN_TOKEN, secretOf, startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/** Sends raw bytes and waits until Herald closes the connection (it closes on what its HTTP parser refuses). */
function rawRequest(url: string, data: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(data);
  });
}

/**
 * The log as text, with every serialised Buffer (`{"type":"Buffer","data":[...]}`, as pino writes an error's raw
 * packet) decoded, so that bytes of a request are searched too.
 */
function searchable(lines: readonly string[]): string {
  const decoded: string[] = [];
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    const buffer = value as { type?: unknown; data?: unknown };
    if (buffer.type === 'Buffer' && Array.isArray(buffer.data))
      decoded.push(Buffer.from(buffer.data as number[]).toString('latin1'));
    for (const child of Object.values(value)) walk(child);
  };
  for (const line of lines) walk(JSON.parse(line));
  return [...lines, ...decoded].join('\n');
}

describe.each(ENGINES)('secrets never reach the logs (%s)', (engine) => {
  const lines: string[] = [];
  let t: TestHerald;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    // The first callback attempt fails, so that Herald logs it (with the URL) and retries.
    receiver.answer = (_request, index) => (index === 0 ? 500 : 200);
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: {
        HERALD_LOG_LEVEL: 'trace',
        HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
        HERALD_CALLBACK_RETRY_INTERVAL: '1',
        HERALD_RATE_LIMIT: '0',
        HERALD_AUTH_FAILURE_LIMIT: '0',
      },
      // The production logger, with its redaction, at its most verbose.
      log: createLogger(
        'trace',
        logSink((line) => lines.push(line)),
      ),
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('logs every request at trace level without a token, the admin token or a callback credential', async () => {
    // Tokens come back from the operator API.
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const issued = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'system' });
    expect(issued.status).toBe(201);
    const signing = (await t.admin('GET', `/admin/v1/accounts/${account.id}`)).body.callbackSecret as string;
    const rotated = await t.call('POST', '/api/v1/callback-secret/rotate', { token: account.system });
    expect(rotated.status).toBe(200);

    // Valid tokens, on successes and on errors.
    const password = 'pa55-word-xyz';
    const callbackUrl = `http://hook-user:${password}@127.0.0.1:${receiver.port}/callbacks?token=cb-qu3ry-t0ken`;
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { destination: '79161232290', callbackUrl })],
    });
    expect(sent.body.errors).toBe(false);
    expect((await t.call('GET', '/api/v1/message', { token: issued.body.token })).status).toBe(403);
    expect(
      (await t.call('GET', '/api/v1/message/not-a-uuid', { token: account.traffic })).status,
    ).toBeGreaterThanOrEqual(400);
    expect(
      (
        await t.call('POST', '/api/v1/message', {
          token: account.traffic,
          rawBody: '[{',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await t.call('POST', '/api/v1/message', {
          token: account.traffic,
          body: [message('SMS', { callbackUrl: `${callbackUrl}\u0000` })],
        })
      ).status,
    ).toBeGreaterThanOrEqual(400);
    const tc = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'Logs' } });
    const ruleUrl = 'http://rule-user:ru1e-pa55@127.0.0.1:9/in';
    expect(
      (
        await t.call('POST', '/api/v1/inbound-rules', {
          token: account.system,
          body: { trafficCenterId: tc.body.id, callbackUrl: ruleUrl },
        })
      ).status,
    ).toBe(201);
    // A bot token attached to a TELEGRAM sender name, and a mistyped one refused, in the body and in its answer.
    const bot = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'TELEGRAM',
      name: 'logs_test_bot',
    });
    const botSecret = 'AAHb0t-s3cret-0123456789abcdefghij';
    const botToken = `4242424242:${botSecret}`;
    // Telegram (its simulator) knows the bot: Herald asks it with the token, and registers the bot's webhook.
    t.simulators!.telegram.bot.addBot(botToken, 'logs_test_bot');
    expect((await t.admin('PATCH', `/admin/v1/sender-names/${bot.body.id}`, { botToken })).status).toBe(200);
    for (const mistyped of [`${botToken}!`, `${botToken}${'x'.repeat(200)}`])
      expect((await t.admin('PATCH', `/admin/v1/sender-names/${bot.body.id}`, { botToken: mistyped })).status).toBe(
        422,
      );
    // Query strings are not logged: they carry phone numbers and webhook verify tokens.
    await t.call('GET', '/api/v1/message?destination=79161230042&verify_token=qu3ry-s3cret', {
      token: account.traffic,
    });

    // Invalid tokens: a mistyped real one is as secret as the real one.
    for (const [path, auth] of [
      ['/api/v1/balance', `Basic ${account.traffic}x`],
      ['/api/v1/balance', `Bearer ${account.traffic} ${account.system}`],
      ['/api/v1/balance', `Bearer ${ADMIN_TOKEN}`],
      ['/admin/v1/accounts', `Bearer ${ADMIN_TOKEN}x`],
      ['/admin/v1/accounts', `Basic ${ADMIN_TOKEN}`],
      ['/admin/v1/accounts', `Bearer ${account.system}`],
    ]) {
      expect((await t.call('GET', path!, { auth })).status).toBe(401);
    }

    // Refused by Node's HTTP parser with the token in the raw bytes: a bad header, and a header block over 16 KiB.
    expect(
      await rawRequest(
        t.url,
        `GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${account.traffic}\r\nX-Bad: \u0001\r\n\r\n`,
      ),
    ).toContain(' 400 ');
    expect(
      await rawRequest(
        t.url,
        `GET /admin/v1/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
          `X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    ).toContain(' 431 ');

    // The callback carries the URL's credentials as Basic authorization; its first attempt fails and is logged.
    await waitFor(() => receiver.received.length >= 2, { timeoutMs: 15_000 });
    expect(receiver.received[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`hook-user:${password}`).toString('base64')}`,
    );
    await waitFor(() => lines.some((line) => line.includes('callback not accepted')));
    expect(lines.find((line) => line.includes('callback not accepted'))).toContain('/callbacks?token=***');

    const log = searchable(lines);
    expect(log).toContain('incoming request');
    expect(log).toContain('"statusCode":401');
    expect(log).toContain('client error');
    const secrets = {
      admin: ADMIN_TOKEN,
      traffic: account.traffic,
      system: account.system,
      issued: issued.body.token as string,
      signing,
      rotated: rotated.body.secret as string,
      password,
      rulePassword: 'ru1e-pa55',
      queryToken: 'qu3ry-s3cret',
      callbackQueryToken: 'cb-qu3ry-t0ken',
      callbackAuthorization: Buffer.from(`hook-user:${password}`).toString('base64'),
      botSecret,
    };
    for (const token of [account.traffic, account.system, issued.body.token as string])
      expect(secretOf(token).length).toBeGreaterThan(16);
    Object.assign(secrets, {
      trafficSecret: secretOf(account.traffic),
      systemSecret: secretOf(account.system),
      issuedSecret: secretOf(issued.body.token),
    });
    for (const [name, secret] of Object.entries(secrets))
      expect(log.includes(secret), `${name} appears in the log`).toBe(false);
  });
});
