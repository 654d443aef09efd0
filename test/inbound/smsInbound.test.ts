import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const LONG = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

describe.each(ENGINES)('inbound SMS over SMPP: owned by number, routed, called back, never dropped (%s)', (engine) => {
  let t: TestHerald;
  let receiver: Receiver;
  let account: TestAccount;
  const inboundTexts = async (): Promise<string[]> =>
    (await t.call('GET', '/api/v1/message?direction=inbound', { token: account.traffic })).body.items.map(
      (m: { content: string }) => m.content,
    );

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    account = await t.createAccount({});
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { inbound: true });
    const assigned = await t.admin('POST', `/admin/v1/accounts/${account.id}/inbound-numbers`, {
      channelType: 'SMS',
      number: '4242',
    });
    expect(assigned).toMatchObject({
      status: 201,
      body: { channelType: 'SMS', number: '4242', accountId: account.id },
    });
    const center = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'SMS' } });
    const rule = await t.call('POST', '/api/v1/inbound-rules', {
      token: account.system,
      body: { channelType: 'SMS', trafficCenterId: center.body.id, callbackUrl: receiver.url, senderNames: ['4242'] },
    });
    expect(rule.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('keeps one owner per number', async () => {
    const other = await t.createAccount({});
    const taken = await t.admin('POST', `/admin/v1/accounts/${other.id}/inbound-numbers`, {
      channelType: 'SMS',
      number: '4242',
    });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 4091 } } });
    const again = await t.admin('POST', `/admin/v1/accounts/${account.id}/inbound-numbers`, {
      channelType: 'SMS',
      number: '4242',
    });
    expect(again.status).toBe(201);
    expect((await t.admin('GET', `/admin/v1/accounts/${account.id}/inbound-numbers`)).body.items).toHaveLength(1);
  });

  it('stores an SMS to the number as an inbound message of its account and calls the rule back', async () => {
    const smsc = t.simulators!.smsc;
    const [answer] = await smsc.sendMo({ from: '79161230001', to: '4242', text: 'STOP please' });
    expect(answer?.command_status).toBe(0);
    await waitFor(async () => (await inboundTexts()).includes('STOP please'));
    // Callbacks come in batches (arrays of events, spec 6.5).
    const events = (): { channel_type: string; status: string; item: { content: string } }[] =>
      receiver.received.flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]));
    const callback = await waitFor(() => events().find((e) => e.item?.content === 'STOP please'));
    expect(callback).toMatchObject({
      callback_event: 'inbound_sent',
      channel_type: 'SMS',
      status: 'inbound_sent',
      item: { channelType: 'SMS', direction: 'inbound', senderName: '4242', destination: '79161230001' },
    });
  });

  it('reassembles a long SMS before storing it', async () => {
    await t.simulators!.smsc.sendMo({ from: '79161230002', to: '4242', text: LONG, partSize: 100, order: [2, 3, 1] });
    await waitFor(async () => (await inboundTexts()).includes(LONG));
  });

  it('keeps an SMS to a number no account has, listed to the operator', async () => {
    await t.simulators!.smsc.sendMo({ from: '79161230003', to: '9999', text: 'nobody owns me' });
    await waitFor(async () =>
      (await t.admin('GET', '/admin/v1/inbounds/unrouted')).body.items.some(
        (i: { text: string; senderName: string }) => i.text === 'nobody owns me' && i.senderName === '9999',
      ),
    );
  });
});
