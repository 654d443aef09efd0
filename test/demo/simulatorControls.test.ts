import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { DEMO_INBOUND_NUMBER } from '../../src/demo/demo.js';
import { type Herald, startHerald } from '../../src/main.js';
import { type Engine, ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startTestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const INBOUND = { channelType: 'WHATSAPP', from: '79161234560', senderName: 'Herald', text: 'Where is my parcel?' };
const EXPECTED = { error: { code: 4220, msg: 'Expected {channelType: "WHATSAPP", from, senderName, text}' } };
const EXPECTED_ANY = {
  error: {
    code: 4220,
    msg:
      'Expected {channelType: "WHATSAPP", from, senderName, text}, {channelType: "TELEGRAM", from, senderName, text} ' +
      'or {channelType: "SMS", from, to, text}',
  },
};
/** Three UCS-2 parts (67 characters each): the SMSC simulator delivers it in parts, Herald joins them. */
const LONG_SMS = 'Где моя посылка? '.repeat(10).trim();

/**
 * An embedded demo Herald with its simulators, as `npm start` runs it (role all: the simulators run with the
 * connectors), and what it printed at start-up (the banner goes to standard output; only the start is captured).
 */
async function startDemo(engine: Engine): Promise<{ herald: Herald; printed: string[]; testDb: TestDb }> {
  const testDb = await openTestDb(engine);
  const config = loadConfig({
    HERALD_PORT: '0',
    HERALD_SIMULATORS: 'on',
    HERALD_DEMO: 'true',
    HERALD_ADMIN_TOKEN: 'a'.repeat(32),
    HERALD_SIM_DELAY_MS: '10',
    HERALD_LOG_LEVEL: 'silent',
  });
  const printed: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => printed.push(String(chunk)) > 0);
  try {
    const herald = await startHerald({ config, role: 'all', db: testDb.db, log: pino({ level: 'silent' }) });
    return { herald, printed, testDb };
  } catch (error) {
    await testDb.drop();
    throw error;
  } finally {
    stdout.mockRestore();
  }
}

describe.each(ENGINES)("the simulators' control endpoints on Herald's API port (DESIGN 12) (%s)", (engine) => {
  it('serves POST /sim/v1/inbound on the API port when the simulators are on, and prints it at start-up', async () => {
    const { herald, printed, testDb } = await startDemo(engine);
    try {
      const url = herald.url!;
      expect(printed.join('')).toContain(`POST ${url}/sim/v1/inbound`);

      const reply = await call(url, 'POST', '/sim/v1/inbound', { body: INBOUND });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ id: expect.stringMatching(/^wamid\.in\./) });
      // The simulator posts the provider's webhook to Herald: the demo account sees the subscriber's message.
      const token = herald.demo!.trafficToken;
      const inbound = await waitFor(async () => {
        const list = await call(url, 'GET', '/api/v1/message?direction=inbound', { token });
        return list.body.items?.[0];
      });
      expect(inbound).toMatchObject({ direction: 'inbound', senderName: 'Herald', destination: '79161234560' });
      expect(inbound.content).toEqual({ contentType: 'text', text: 'Where is my parcel?' });

      // The same answers as on the WhatsApp simulator's own port.
      const bad = { channelType: 'WHATSAPP', from: '79161234560' };
      const onApi = await call(url, 'POST', '/sim/v1/inbound', { body: bad });
      const onSimulator = await call(herald.simulators!.providers.url, 'POST', '/sim/v1/inbound', { body: bad });
      expect([onApi.status, onApi.body]).toEqual([422, EXPECTED]);
      expect([onSimulator.status, onSimulator.body]).toEqual([422, EXPECTED]);
      const noChannel = await call(url, 'POST', '/sim/v1/inbound', { body: { from: '79161234560', text: 'x' } });
      expect([noChannel.status, noChannel.body]).toEqual([422, EXPECTED_ANY]);
    } finally {
      await herald.close();
      await testDb.drop();
    }
  });

  it('takes an SMS to the demo inbound number, delivered by the SMSC simulator as MO deliver_sm parts', async () => {
    const { herald, printed, testDb } = await startDemo(engine);
    try {
      const url = herald.url!;
      const token = herald.demo!.trafficToken;
      // The banner names the SMS control with an example that works as printed: the demo account owns its number.
      const banner = printed.join('');
      const example = `-d '{"channelType":"SMS","from":"79161234567","to":"${DEMO_INBOUND_NUMBER}","text":"Hi"}'`;
      expect(banner).toContain(example);
      const numbers = await call(url, 'GET', `/admin/v1/accounts/${herald.demo!.accountId}/inbound-numbers`, {
        auth: `Bearer ${'a'.repeat(32)}`,
      });
      expect(numbers.body.items).toEqual([
        expect.objectContaining({ channelType: 'SMS', number: DEMO_INBOUND_NUMBER }),
      ]);
      // Herald's SMPP connector binds to the simulator after start-up.
      await waitFor(() => herald.simulators!.smsc.boundSessions > 0);

      const sms = { channelType: 'SMS', from: '79161234561', to: DEMO_INBOUND_NUMBER, text: LONG_SMS };
      const reply = await call(url, 'POST', '/sim/v1/inbound', { body: sms });
      expect(reply).toMatchObject({ status: 200, body: { parts: 3 } });
      const inbound = await waitFor(async () => {
        const list = await call(url, 'GET', '/api/v1/message?direction=inbound', { token });
        return list.body.items?.find((m: { channelType: string }) => m.channelType === 'SMS');
      });
      expect(inbound).toMatchObject({
        channelType: 'SMS',
        direction: 'inbound',
        senderName: DEMO_INBOUND_NUMBER,
        destination: '79161234561',
        content: LONG_SMS,
        totalParts: 3,
      });

      const missingTo = await call(url, 'POST', '/sim/v1/inbound', {
        body: { channelType: 'SMS', from: '1', text: 'x' },
      });
      expect([missingTo.status, missingTo.body]).toEqual([
        422,
        { error: { code: 4220, msg: 'Expected {channelType: "SMS", from, to, text}' } },
      ]);
    } finally {
      await herald.close();
      await testDb.drop();
    }
  });

  it('does not serve them when the simulators are off', async () => {
    const t = await startTestHerald(engine);
    try {
      const reply = await t.call('POST', '/sim/v1/inbound', { body: INBOUND });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe(4040);
    } finally {
      await t.close();
    }
  });

  it('has a demo bot: a TELEGRAM text, code and inbound, and the banner cascade VK -> TELEGRAM -> SMS', async () => {
    const { herald, printed, testDb } = await startDemo(engine);
    try {
      const url = herald.url!;
      const token = herald.demo!.trafficToken;
      const banner = printed.join('');
      expect(banner).toContain('Telegram bot:      herald_demo_bot');
      // The banner's own cascade, as a demo user would paste it.
      const body = JSON.parse(/-d '(\[\{"destination".*?)'\n/.exec(banner)![1]!);
      const cascade = await call(url, 'POST', '/api/v1/message/cascade', { token, body });
      expect(cascade.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
      const sent = await call(url, 'POST', '/api/v1/message', {
        token,
        body: [
          { channelType: 'TELEGRAM', senderName: 'herald_demo_bot', destination: '79161234561', content: 'Hi' },
          {
            channelType: 'TELEGRAM',
            senderName: 'herald_demo_bot',
            destination: '79161234560',
            content: { contentType: 'code', code: '4321' },
          },
        ],
      });
      expect(sent.body.errors).toBe(false);
      const [text, code] = sent.body.items.map((i: { messageUuid: string }) => i.messageUuid);
      const get = async (id: string) => (await call(url, 'GET', `/api/v1/message/${id}`, { token })).body;
      expect(await waitFor(async () => (await get(text)).status === 'delivered')).toBe(true);
      expect(await waitFor(async () => (await get(code)).readStatus === 'read')).toBe(true);
      // The cascade: VK and TELEGRAM (number ending in 8: the bot is blocked, 7602) fail over to SMS.
      const root = cascade.body.items[0].messageUuid;
      const steps = await waitFor(async () => {
        const c = (await call(url, 'GET', `/api/v1/message/cascade/${root}`, { token })).body;
        return (
          c.steps?.length === 3 &&
          c.steps.every(
            (s: { message: { status: string } }) => s.message.status !== 'sending' && s.message.status !== 'sent',
          ) &&
          c.steps
        );
      });
      expect(steps.map((s: { message: { channelType: string } }) => s.message.channelType)).toEqual([
        'VK',
        'TELEGRAM',
        'SMS',
      ]);
      expect(steps[1].message).toMatchObject({ status: 'undelivered', errorCode: 7602 });

      // A subscriber writes to the bot through the simulator's control: an inbound TELEGRAM message.
      const wrote = await call(url, 'POST', '/sim/v1/inbound', {
        body: { channelType: 'TELEGRAM', from: '79161234561', senderName: 'herald_demo_bot', text: 'Thanks!' },
      });
      expect(wrote.status).toBe(200);
      const inbound = await waitFor(async () => {
        const list = await call(url, 'GET', '/api/v1/message?direction=inbound&channel_type=TELEGRAM', { token });
        return list.body.items?.[0];
      });
      expect(inbound).toMatchObject({ senderName: 'herald_demo_bot', destination: '79161234561' });
      const noTelegram = await call(url, 'POST', '/sim/v1/inbound', {
        body: { channelType: 'TELEGRAM', from: '79161234567', senderName: 'herald_demo_bot', text: 'x' },
      });
      expect(noTelegram.status).toBe(422);
    } finally {
      await herald.close();
      await testDb.drop();
    }
  });
});
