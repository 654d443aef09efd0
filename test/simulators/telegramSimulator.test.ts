import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatewayReportSignature, gatewayReportSignatureValid } from '../../src/simulators/telegramGatewayApi.js';
import { telegramUserId } from '../../src/simulators/telegramBotApi.js';
import { TelegramSimulator } from '../../src/simulators/telegramSimulator.js';
import { TestClock } from '../helpers/clock.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';

const BOT_TOKEN = '123456789:AAH-simulated_token';
const BOT = 'herald_test_bot';
const GATEWAY_TOKEN = 'AAEFAAAAQKI_simulated_gateway_token';
/** Longer than any test runs: the test clock's timers also fire in real time, and only the test moves the steps. */
const DELAY_MS = 60_000;

let clock: TestClock;
let sim: TelegramSimulator;
let receiver: Receiver;

beforeEach(async () => {
  clock = new TestClock();
  sim = new TelegramSimulator({
    delayMs: DELAY_MS,
    clock,
    bots: { [BOT_TOKEN]: BOT },
    gatewayToken: GATEWAY_TOKEN,
    gatewayBalance: 1,
    gatewayPrice: 0.01,
  });
  await sim.start();
  receiver = await new Receiver().start();
});

afterEach(async () => {
  await sim.stop();
  await receiver.stop();
});

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

const botCall = (method: string, params: Record<string, unknown> = {}, token = BOT_TOKEN) =>
  call(`${sim.botApiUrl}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });

const gatewayCall = (method: string, params: Record<string, unknown> = {}, token = GATEWAY_TOKEN) =>
  call(`${sim.gatewayUrl}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(params),
  });

describe('Bot API', () => {
  it('getMe answers the bot as a User, by GET too, and 401 Unauthorized for an unknown token', async () => {
    const me = await call(`${sim.botApiUrl}/bot${BOT_TOKEN}/getMe`);
    expect(me).toEqual({
      status: 200,
      body: { ok: true, result: expect.objectContaining({ id: 123456789, is_bot: true, username: BOT }) },
    });
    expect(await botCall('getme', {}, '1:wrong')).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    expect((await botCall('noSuchMethod')).body).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
  });

  it('setWebhook remembers url and secret_token (form body), deleteWebhook forgets them', async () => {
    const set = await call(`${sim.botApiUrl}/bot${BOT_TOKEN}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: receiver.url, secret_token: 'S3cret_-token' }).toString(),
    });
    expect(set).toEqual({ status: 200, body: { ok: true, result: true, description: 'Webhook was set' } });
    expect(sim.bot.webhookOf(BOT)).toEqual({ url: receiver.url, secretToken: 'S3cret_-token' });
    expect((await botCall('getWebhookInfo')).body.result.url).toBe(receiver.url);
    const bad = await botCall('setWebhook', { url: receiver.url, secret_token: 'not allowed!' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error_code: 400 });
    expect((await botCall('deleteWebhook')).body).toEqual({
      ok: true,
      result: true,
      description: 'Webhook was deleted',
    });
    expect(sim.bot.webhookOf(BOT)).toBeUndefined();
  });

  it('sendMessage answers a Message; 7 chat not found, 8 blocked the bot; query-string parameters too', async () => {
    const chatId = telegramUserId('+447700900123');
    const sent = await call(`${sim.botApiUrl}/bot${BOT_TOKEN}/sendMessage?chat_id=${chatId}&text=Hello`);
    expect(sent.status).toBe(200);
    expect(sent.body.result).toEqual({
      message_id: expect.any(Number),
      from: { id: 123456789, is_bot: true, first_name: BOT, username: BOT },
      chat: { id: chatId, first_name: 'Subscriber', type: 'private' },
      date: Math.floor(clock.now().getTime() / 1000),
      text: 'Hello',
    });
    expect(await botCall('sendMessage', { chat_id: telegramUserId('447700900127'), text: 'x' })).toEqual({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
    });
    expect(await botCall('sendMessage', { chat_id: telegramUserId('447700900128'), text: 'x' })).toEqual({
      status: 403,
      body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
    });
    expect((await botCall('sendMessage', { chat_id: 42, text: 'x' })).body.description).toBe(
      'Bad Request: chat not found',
    );
    expect((await botCall('sendMessage', { chat_id: chatId })).status).toBe(400);
    expect(sim.bot.sent.map((s) => s.status)).toEqual([200, 400, 403, 400]);
  });

  it('a throttled bot answers 429 with parameters.retry_after, then sends again', async () => {
    sim.bot.throttle(BOT, 2, 7);
    const chatId = telegramUserId('447700900121');
    for (let i = 0; i < 2; i++) {
      expect(await botCall('sendMessage', { chat_id: chatId, text: 'x' })).toEqual({
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 7',
          parameters: { retry_after: 7 },
        },
      });
    }
    expect((await botCall('sendMessage', { chat_id: chatId, text: 'x' })).status).toBe(200);
  });

  describe('Updates to the webhook', () => {
    beforeEach(async () => {
      await botCall('setWebhook', { url: receiver.url, secret_token: 'hook-secret' });
    });

    it('posts /start, a text, the own contact and someone else contact with the secret header', async () => {
      const from = '447700900125';
      const userId = telegramUserId(from);
      const start = await sim.bot.write(BOT, from, { kind: 'start' });
      await sim.bot.write(BOT, from, { kind: 'text', text: 'hello bot' });
      await sim.bot.write(BOT, from, { kind: 'contact' });
      await sim.bot.write(BOT, from, { kind: 'contact', phoneNumber: '447700900333' });
      expect(start.status).toBe(200);
      expect(receiver.received).toHaveLength(4);
      for (const r of receiver.received) expect(r.headers['x-telegram-bot-api-secret-token']).toBe('hook-secret');
      const [first, text, own, other] = receiver.received.map((r) => r.body);
      expect(first.message).toMatchObject({
        from: { id: userId, is_bot: false },
        chat: { id: userId, type: 'private' },
        text: '/start',
        entities: [{ offset: 0, length: 6, type: 'bot_command' }],
      });
      expect(text.message.text).toBe('hello bot');
      expect(own.message.contact).toEqual({ phone_number: from, first_name: 'Subscriber', user_id: userId });
      expect(other.message.contact.user_id).toBe(telegramUserId('447700900333'));
      expect(other.message.contact.user_id).not.toBe(other.message.from.id);
      const ids = receiver.received.map((r) => r.body.update_id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(4);
    });

    it('records the webhook answer and posts again, on the clock, until it answers 2xx', async () => {
      receiver.answer = (_request, index) => (index === 0 ? 401 : 200);
      const first = await sim.bot.write(BOT, '447700900125', { kind: 'text', text: 'again' });
      expect(first).toMatchObject({ attempt: 1, status: 401 });
      clock.advance(1000);
      await waitFor(() => sim.bot.deliveries.length === 2);
      expect(sim.bot.deliveries[1]).toMatchObject({ attempt: 2, status: 200 });
      expect(receiver.received[1]!.body).toEqual(receiver.received[0]!.body);
    });

    it('refuses a subscriber with no Telegram', async () => {
      await expect(sim.bot.write(BOT, '447700900127', { kind: 'start' })).rejects.toThrow('no Telegram');
    });
  });
});

/** The docs' formula, written here on its own: hex(HMAC_SHA256(timestamp + "\n" + body, key = SHA256(token))). */
function docsSignature(timestamp: string, body: string): string {
  const secretKey = createHash('sha256').update(GATEWAY_TOKEN).digest();
  return createHmac('sha256', secretKey)
    .update(timestamp + '\n' + body)
    .digest('hex');
}

/** Advances the clock one step at a time and waits for the reports each brings (counted in all so far). */
async function reportsAfterSteps(...expected: number[]): Promise<any[]> {
  for (const count of expected) {
    clock.advance(DELAY_MS);
    await waitFor(() => receiver.received.length >= count);
  }
  return receiver.received.map((r) => {
    const timestamp = String(r.headers['x-request-timestamp']);
    expect(r.headers['x-request-signature']).toBe(docsSignature(timestamp, r.raw));
    return r.body;
  });
}

describe('Gateway API', () => {
  it('refuses a bad token with ACCESS_TOKEN_INVALID, header or access_token parameter', async () => {
    expect(await gatewayCall('checkSendAbility', { phone_number: '+447700900121' }, 'wrong')).toEqual({
      status: 401,
      body: { ok: false, error: 'ACCESS_TOKEN_INVALID' },
    });
    const viaParam = await call(
      `${sim.gatewayUrl}/checkSendAbility?access_token=${GATEWAY_TOKEN}&phone_number=%2B447700900121`,
    );
    expect(viaParam.body.ok).toBe(true);
  });

  it('checkSendAbility charges and answers a RequestStatus; 7 cannot receive and is not charged', async () => {
    const able = await gatewayCall('checkSendAbility', { phone_number: '+447700900121' });
    expect(able).toEqual({
      status: 200,
      body: {
        ok: true,
        result: {
          request_id: expect.any(String),
          phone_number: '+447700900121',
          request_cost: 0.01,
          remaining_balance: 0.99,
        },
      },
    });
    const unable = await gatewayCall('checkSendAbility', { phone_number: '+447700900127' });
    expect(unable).toEqual({ status: 400, body: { ok: false, error: 'PHONE_NUMBER_NOT_AVAILABLE' } });
    expect(sim.gateway.balance).toBe(0.99);
  });

  it('sendVerificationMessage with its request_id is free once, then an error; 0-5 sent, delivered, read', async () => {
    const check = await gatewayCall('checkSendAbility', { phone_number: '+447700900121' });
    const requestId = check.body.result.request_id;
    const params = {
      phone_number: '+447700900121',
      request_id: requestId,
      code: '4321',
      ttl: 300,
      callback_url: receiver.url,
      payload: 'message-uuid',
    };
    const sent = await gatewayCall('sendVerificationMessage', params);
    expect(sent.body).toEqual({
      ok: true,
      result: { request_id: requestId, phone_number: '+447700900121', request_cost: 0.01, payload: 'message-uuid' },
    });
    expect((await gatewayCall('sendVerificationMessage', params)).body).toEqual({
      ok: false,
      error: 'REQUEST_ID_INVALID',
    });
    expect(sim.gateway.balance).toBe(0.99);

    const reports = await reportsAfterSteps(1, 2, 3);
    expect(reports.map((r) => r.delivery_status.status)).toEqual(['sent', 'delivered', 'read']);
    expect(reports[2]).toEqual({
      request_id: requestId,
      phone_number: '+447700900121',
      request_cost: 0.01,
      delivery_status: { status: 'read', updated_at: Math.floor(clock.now().getTime() / 1000) },
      payload: 'message-uuid',
    });
    const status = await gatewayCall('checkVerificationStatus', { request_id: requestId, code: '4321' });
    expect(status.body.result.verification_status).toMatchObject({ status: 'code_valid', code_entered: '4321' });
    const wrong = await gatewayCall('checkVerificationStatus', { request_id: requestId, code: '0000' });
    expect(wrong.body.result.verification_status.status).toBe('code_invalid');
  });

  it('6 is delivered and never read, 8 revoked, 9 never reported; each report signed', async () => {
    for (const phone of ['+447700900126', '+447700900128', '+447700900129']) {
      const sent = await gatewayCall('sendVerificationMessage', { phone_number: phone, callback_url: receiver.url });
      expect(sent.body.result.remaining_balance).toBeDefined();
      expect(sim.gateway.request(sent.body.result.request_id)!.code).toMatch(/^\d{6}$/);
    }
    const reports = await reportsAfterSteps(2, 4, 4);
    const byPhone = (phone: string) =>
      reports.filter((r) => r.phone_number === phone).map((r) => r.delivery_status.status);
    expect(byPhone('+447700900126')).toEqual(['sent', 'delivered']);
    expect(byPhone('+447700900128')).toEqual(['sent', 'revoked']);
    expect(byPhone('+447700900129')).toEqual([]);
    expect(reports).toHaveLength(4);
    expect((await gatewayCall('sendVerificationMessage', { phone_number: '+447700900127' })).body.error).toBe(
      'PHONE_NUMBER_NOT_AVAILABLE',
    );
  });

  it('a message not delivered within its ttl expires, refunded', async () => {
    const params = { phone_number: '+447700900121', ttl: 30, callback_url: receiver.url };
    const sent = await gatewayCall('sendVerificationMessage', params);
    expect(sim.gateway.balance).toBe(0.99);
    clock.advance(30_000);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]!.body).toEqual({
      request_id: sent.body.result.request_id,
      phone_number: '+447700900121',
      request_cost: 0.01,
      is_refunded: true,
      delivery_status: { status: 'expired', updated_at: Math.floor(clock.now().getTime() / 1000) },
    });
    expect(sim.gateway.balance).toBe(1);
    clock.advance(3 * DELAY_MS);
    expect(sim.gateway.request(sent.body.result.request_id)!.delivery!.status).toBe('expired');
    const status = await gatewayCall('checkVerificationStatus', { request_id: sent.body.result.request_id, code: '1' });
    expect(status.body.result.verification_status.status).toBe('expired');
  });

  it('revokeVerificationMessage revokes a message not yet delivered and reports it', async () => {
    const sent = await gatewayCall('sendVerificationMessage', {
      phone_number: '+447700900121',
      callback_url: receiver.url,
    });
    const requestId = sent.body.result.request_id;
    expect(await gatewayCall('revokeVerificationMessage', { request_id: requestId })).toEqual({
      status: 200,
      body: { ok: true, result: true },
    });
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]!.body.delivery_status.status).toBe('revoked');
    expect(receiver.received[0]!.body.is_refunded).toBeUndefined();
    expect((await gatewayCall('revokeVerificationMessage', { request_id: 'none' })).body.ok).toBe(false);
  });

  it('checks its parameters: number, code, ttl bounds 30-3600', async () => {
    const error = async (params: Record<string, unknown>) =>
      (await gatewayCall('sendVerificationMessage', params)).body.error;
    expect(await error({ phone_number: 'abc' })).toBe('PHONE_NUMBER_INVALID');
    expect(await error({ phone_number: '+447700900121', code: '12' })).toBe('CODE_INVALID');
    expect(await error({ phone_number: '+447700900121', ttl: 29 })).toBe('TTL_INVALID');
    expect(await error({ phone_number: '+447700900121', ttl: 3601 })).toBe('TTL_INVALID');
    expect(sim.gateway.balance).toBe(1);
  });

  it('posts a report again while the callback answers other than 200', async () => {
    receiver.answer = (_request, index) => (index === 0 ? 500 : 200);
    await gatewayCall('sendVerificationMessage', { phone_number: '+447700900126', callback_url: receiver.url });
    clock.advance(DELAY_MS);
    await waitFor(() => sim.gateway.reports.length === 1);
    clock.advance(1000);
    const sentReports = () => sim.gateway.reports.filter((r) => r.body.includes('"sent"'));
    await waitFor(() => sentReports().length === 2);
    expect(sentReports().map((r) => [r.attempt, r.status])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(sentReports()[1]!.body).toBe(sentReports()[0]!.body);
  });

  it('the exported signature follows the docs formula and verifies', () => {
    const body = '{"request_id":"x"}';
    const signature = gatewayReportSignature(GATEWAY_TOKEN, '1700000000', body);
    expect(signature).toBe(docsSignature('1700000000', body));
    expect(gatewayReportSignatureValid(GATEWAY_TOKEN, '1700000000', body, signature)).toBe(true);
    expect(gatewayReportSignatureValid(GATEWAY_TOKEN, '1700000001', body, signature)).toBe(false);
    expect(gatewayReportSignatureValid('other', '1700000000', body, signature)).toBe(false);
  });
});
