import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/** A callback URL's user name alone and its secret query parameters are never shown (docs/security.md). */
describe.each(ENGINES)('callback URLs are shown masked everywhere (%s)', (engine) => {
  let t: TestHerald;
  let receiver: Receiver;
  let account: TestAccount;
  const SECRETS = ['sk_live_X', 'abc-t0ken', 's1g-value'];
  const expectNoSecret = (value: unknown) => {
    for (const secret of SECRETS) expect(JSON.stringify(value)).not.toContain(secret);
  };

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      // Private addresses allowed for the local receiver; refused ones are checked on a second Herald below.
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('in the message object and list, and the callback deliveries, while the receiver gets the real URL', async () => {
    const url = `http://sk_live_X@127.0.0.1:${receiver.port}/hook?token=abc-t0ken&order=7&Signature=s1g-value`;
    const masked = `http://***@127.0.0.1:${receiver.port}/hook?token=***&order=7&Signature=***`;
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { destination: '79161232290', callbackUrl: url })],
    });
    const uuid = sent.body.items[0].messageUuid as string;
    const one = await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic });
    expect(one.body.callbackUrl).toBe(masked);
    const list = await t.call('GET', `/api/v1/message?message_uuid=${uuid}`, { token: account.traffic });
    expect(list.body.items[0].callbackUrl).toBe(masked);

    await untilCallbackRound(t.herald, () => receiver.received.length > 0);
    expect(receiver.received[0]!.url).toBe('/hook?token=abc-t0ken&order=7&Signature=s1g-value');
    expect(receiver.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('sk_live_X:').toString('base64')}`);
    const deliveries = await t.call('GET', `/api/v1/callbacks?message_uuid=${uuid}`, { token: account.system });
    expect(deliveries.body.items.map((d: { url: string }) => d.url)).toEqual([masked]);
    for (const reply of [one, list, deliveries]) expectNoSecret(reply.body);
  });

  it('in inbound rules: created, read, listed, replaced, and refused as too long', async () => {
    const center = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'Masked' } });
    const body = {
      trafficCenterId: center.body.id,
      callbackUrl: 'https://sk_live_X@hooks.example/in?api_key=abc-t0ken',
    };
    const created = await t.call('POST', '/api/v1/inbound-rules', { token: account.system, body });
    expect(created.body.callbackUrl).toBe('https://***@hooks.example/in?api_key=***');
    const path = `/api/v1/inbound-rules/${created.body.id}`;
    const replaced = await t.call('PUT', path, {
      token: account.system,
      body: { ...body, callbackUrl: 'https://hooks.example/in?sig=s1g-value' },
    });
    expect(replaced.body.callbackUrl).toBe('https://hooks.example/in?sig=***');
    const read = await t.call('GET', path, { token: account.system });
    const listed = await t.call('GET', '/api/v1/inbound-rules', { token: account.system });
    const tooLong = await t.call('POST', '/api/v1/inbound-rules', {
      token: account.system,
      body: { ...body, callbackUrl: `https://sk_live_X@hooks.example/in?token=abc-t0ken&pad=${'a'.repeat(2100)}` },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.msg).toMatch(
      /^Invalid callbackUrl: "https:\/\/\*\*\*@hooks.example\/in\?token=\*\*\*&pad=a+\.\.\. \(must NOT have more than 2048 characters\)$/,
    );
    for (const reply of [created, replaced, read, listed, tooLong]) expectNoSecret(reply.body);
  });

  it('in the errors that refuse a URL', async () => {
    const strict = await startTestHerald(engine);
    try {
      const other = await strict.createAccount({ senderNames: [['SMS', SENDER]] });
      const url = 'http://sk_live_X@10.0.0.1/hook?token=abc-t0ken';
      const refusedMessage = await strict.call('POST', '/api/v1/message', {
        token: other.traffic,
        body: [message('SMS', { callbackUrl: url })],
      });
      expect(refusedMessage.body.error).toEqual({
        code: 4220,
        msg: 'Invalid callbackUrl: private address 10.0.0.1 is not allowed: http://***@10.0.0.1/hook?token=***',
        index: 0,
      });
      const center = await strict.call('POST', '/api/v1/traffic-centers', {
        token: other.system,
        body: { name: 'Strict' },
      });
      const refusedRule = await strict.call('POST', '/api/v1/inbound-rules', {
        token: other.system,
        body: { trafficCenterId: center.body.id, callbackUrl: url },
      });
      expect(refusedRule.body.error).toEqual({
        code: 4220,
        msg: 'Invalid callbackUrl: private address 10.0.0.1 is not allowed: http://***@10.0.0.1/hook?token=***',
      });
    } finally {
      await strict.close();
    }
  });
});
