import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../helpers/clock.js';
import { DevinoSimulator } from '../../helpers/providers/devinoSimulator.js';
import { parseExact, stringifyExact } from '../../helpers/providers/exactJson.js';

const AUTH = `Basic ${Buffer.from('herald:secret').toString('base64')}`;

/** The simulator of Devino's VK and Viber APIs, spoken to as the documentation's examples do. */
describe('the Devino simulator', () => {
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const sim = new DevinoSimulator({ login: 'herald', password: 'secret', delayMs: 1000, clock, subjects: ['Shop'] });

  beforeAll(async () => sim.start());
  afterAll(async () => sim.stop());

  const call = async (method: string, path: string, body?: unknown, auth = AUTH): Promise<any> => {
    const response = await fetch(sim.url + path, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : stringifyExact(body),
    });
    expect(response.status).toBe(200);
    return parseExact(await response.text());
  };

  const vk = (over: Record<string, unknown> = {}) => ({
    vk: {
      subject: 'Shop',
      priority: 'high',
      routes: ['ok'],
      validityPeriod: 3600,
      phone: '79161600010',
      templateId: 123456,
      templateData: { text: 'Your order is ready' },
      ...over,
    },
  });
  const viber = (over: Record<string, unknown> = {}) => ({
    subject: 'Shop',
    priority: 'high',
    validityPeriodSec: 3600,
    type: 'viber',
    contentType: 'text',
    content: { text: 'Hello' },
    address: '79161600010',
    ...over,
  });

  it('VK: takes a documented message, issues a 64-bit id, and its status progresses', async () => {
    const answer = await call('POST', '/send/vk', vk());
    expect(answer).toMatchObject({ code: 'ok', description: '', result: { code: 'ok' } });
    const id = answer.result.messageId as bigint;
    expect(typeof id).toBe('bigint');
    expect(id > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    // As a double, the id is another one: what a client that parses it with JSON.parse would keep.
    expect(String(JSON.parse(String(id)))).not.toBe(String(id));
    const status = async () => (await call('GET', `/status/vk?message=${id}`)).result;
    expect(await status()).toMatchObject({ providerId: id, code: 'ok', status: 'enqueued' });
    clock.advance(1000);
    expect((await status()).status).toBe('delivered');
    clock.advance(1000);
    expect((await status()).status).toBe('read');
    expect((await call('GET', '/status/vk?message=1')).result).toEqual({ providerId: 1, code: 'unknown_message_id' });
    expect(await call('GET', '/status/vk')).toEqual({ code: 'validation_error', description: 'message_not_specified' });
  });

  it('VK: refuses each field as documented', async () => {
    const refusal = async (over: Record<string, unknown>) => (await call('POST', '/send/vk', vk(over))).result?.code;
    expect(await refusal({ subject: undefined })).toBe('subject_not_specified');
    expect(await refusal({ subject: 'A twelve chr' })).toBe('subject_invalid');
    expect(await refusal({ subject: 'Other' })).toBe('subject_invalid');
    expect(await refusal({ priority: 'normal' })).toBe('priority_invalid');
    expect(await refusal({ routes: ['ok', 'ok'] })).toBe('routes_invalid');
    expect(await refusal({ routes: undefined })).toBe('routes_not_specified');
    expect(await refusal({ validityPeriod: 14 })).toBe('vp_invalid');
    expect(await refusal({ validityPeriod: 86_401 })).toBe('vp_invalid');
    expect(await refusal({ phone: '8 916 160-00-10' })).toBe('phone_invalid');
    expect(await refusal({ phone: '79161600018' })).toBe('phone_invalid');
    expect(await refusal({ templateData: {} })).toBe('text_not_specified');
    expect(await refusal({ phone: '+79161600010' })).toBe('ok');
    expect(await call('POST', '/send/vk', vk({ templateId: 'abc' }))).toEqual({
      code: 'validation_error',
      description: 'template_id_invalid',
    });
    expect(await call('POST', '/send/vk', '{"vk":')).toEqual({ code: 'validation_error', description: 'invalid_json' });
    expect(await call('POST', '/send/vk', vk(), 'Basic eDp5')).toMatchObject({ code: 'validation_error' });
    sim.failNext('vk', 'queue_full');
    expect(await call('POST', '/send/vk', vk())).toEqual({
      code: 'queue_full',
      description: 'login_send_queue_overflow',
    });
  });

  it('Viber: answers a batch per message in order, refuses 101 messages, polls up to 100 ids', async () => {
    const answer = await call('POST', '/send', {
      resendSms: 'false',
      messages: [
        viber(),
        viber({ address: '79161600018' }),
        viber({ contentType: 'button', content: { text: 'Hi', caption: 'Open', action: 'https://example.com' } }),
        viber({ contentType: 'button', content: { text: 'Hi', caption: 'A caption of 20 chr.', action: 'https://x' } }),
        viber({ contentType: 'image', content: { imageUrl: 'https://example.com/a.png' } }),
        viber({ priority: 'medium' }),
        viber({ validityPeriodSec: 29 }),
        viber({ subject: 'Other' }),
        viber({ address: '+79161600010' }),
        viber({ type: 'sms' }),
        viber({ smsText: 'fallback' }),
      ],
    });
    expect(answer.status).toBe('ok');
    expect(answer.messages.map((m: { code: string }) => m.code)).toEqual([
      'ok',
      'error-address-unknown',
      'ok',
      'error-content-type-format',
      'ok',
      'error-priority-format',
      'error-validity-period-seconds-format',
      'error-subject-unknown',
      'error-address-format',
      'error-instant-message-type-format',
      'error-resend-sms-error',
    ]);
    expect(answer.messages[1].providerId).toBeUndefined();
    const ids = [0, 2, 4].map((i) => answer.messages[i].providerId as bigint);
    expect(ids.every((id) => typeof id === 'bigint')).toBe(true);

    const many = { messages: Array.from({ length: 101 }, () => viber()) };
    expect(await call('POST', '/send', many)).toEqual({ status: 'error-syntax' });
    expect(await call('POST', '/send', { messages: [viber()] }, 'Basic eDp5')).toEqual({ status: 'error-auth' });
    sim.failNext('viber', 'error-system');
    expect(await call('POST', '/send', { messages: [viber()] })).toEqual({ status: 'error-system' });

    clock.advance(1000);
    const polled = await call('POST', '/status', { messages: [...ids, ids[0], 12] });
    expect(polled.status).toBe('ok');
    expect(polled.messages).toMatchObject([
      { providerId: ids[0], code: 'ok', status: 'delivered' },
      { providerId: ids[1], code: 'ok', status: 'delivered' },
      { providerId: ids[2], code: 'ok', status: 'delivered' },
      { providerId: ids[0], code: 'error-instant-message-provider-id-duplicate' },
      { providerId: 12, code: 'error-instant-message-provider-id-unknown' },
    ]);
    const tooMany = { messages: Array.from({ length: 101 }, (_, i) => i + 1) };
    expect(await call('POST', '/status', tooMany)).toEqual({ status: 'error-syntax' });
  });
});
