import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const LONG = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

interface InboundItem {
  content: string;
  totalParts: number;
  senderName: string;
  price: { totalPrice: number; currency: string | null; invoicedParts: number; final: boolean };
}

describe.each(ENGINES)('inbound SMS over SMPP: owned by number, routed, called back, never dropped (%s)', (engine) => {
  let t: TestHerald;
  let receiver: Receiver;
  let account: TestAccount;
  const inbounds = async (owner = account): Promise<InboundItem[]> =>
    (await t.call('GET', '/api/v1/message?direction=inbound', { token: owner.traffic })).body.items;
  const inboundTexts = async (): Promise<string[]> => (await inbounds()).map((m) => m.content);

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

  it('reassembles a long SMS before storing it, and shows the parts it came in', async () => {
    await t.simulators!.smsc.sendMo({ from: '79161230002', to: '4242', text: LONG, partSize: 100, order: [2, 3, 1] });
    const stored = await waitFor(async () => (await inbounds()).find((m) => m.content === LONG));
    expect(stored.totalParts).toBe(3);
  });

  it("prices an inbound SMS at 0 in the account's currency, nothing invoiced (DESIGN 12)", async () => {
    await t.simulators!.smsc.sendMo({ from: '79161230004', to: '4242', text: 'how much?' });
    const stored = await waitFor(async () => (await inbounds()).find((m) => m.content === 'how much?'));
    expect(stored).toMatchObject({ totalParts: 1, price: { totalPrice: 0, currency: 'RUB', invoicedParts: 0 } });
  });

  it('keeps an SMS to a number no account has, listed to the operator', async () => {
    await t.simulators!.smsc.sendMo({ from: '79161230003', to: '9999', text: 'nobody owns me' });
    await waitFor(async () =>
      (await t.admin('GET', '/admin/v1/inbounds/unrouted')).body.items.some(
        (i: { text: string; senderName: string }) => i.text === 'nobody owns me' && i.senderName === '9999',
      ),
    );
  });

  describe('the operator manages inbound numbers (DESIGN 17)', () => {
    const numbers = async (owner: TestAccount): Promise<string[]> =>
      (await t.admin('GET', `/admin/v1/accounts/${owner.id}/inbound-numbers`)).body.items.map(
        (n: { number: string }) => n.number,
      );
    const assign = (owner: TestAccount, number: string) =>
      t.admin('POST', `/admin/v1/accounts/${owner.id}/inbound-numbers`, { channelType: 'SMS', number });
    const inboundAccount = async (): Promise<TestAccount> => {
      const a = await t.createAccount({});
      await t.admin('PATCH', `/admin/v1/accounts/${a.id}`, { inbound: true });
      return a;
    };

    it('takes a number written with + or separators as its digits, as destinations are (DESIGN 4)', async () => {
      const a = await inboundAccount();
      expect(await assign(a, '+7 916 124-00-01')).toMatchObject({
        status: 201,
        body: { channelType: 'SMS', number: '79161240001', accountId: a.id },
      });
      // The same number written another way is the same number: one owner.
      const other = await inboundAccount();
      expect(await assign(other, '89161240001')).toMatchObject({ status: 409, body: { error: { code: 4091 } } });
      expect(await assign(other, '+7916')).toMatchObject({
        status: 422,
        body: { error: { code: 4220, msg: 'Invalid number: +7916' } },
      });
      // An SMSC that writes the number with a + reaches its owner.
      await t.simulators!.smsc.sendMo({ from: '79161230011', to: '+79161240001', text: 'plus sign' });
      await waitFor(async () => (await inbounds(a)).some((m) => m.content === 'plus sign'));
    });

    it('releases a number: later SMS to it are kept as unrouted', async () => {
      const a = await inboundAccount();
      await assign(a, '4243');
      const released = await t.admin('DELETE', `/admin/v1/accounts/${a.id}/inbound-numbers/4243`);
      expect(released.status).toBe(204);
      expect(await numbers(a)).toEqual([]);
      const again = await t.admin('DELETE', `/admin/v1/accounts/${a.id}/inbound-numbers/4243`);
      expect(again).toMatchObject({ status: 404, body: { error: { code: 4040 } } });
      await t.simulators!.smsc.sendMo({ from: '79161230012', to: '4243', text: 'after release' });
      await waitFor(async () =>
        (await t.admin('GET', '/admin/v1/inbounds/unrouted')).body.items.some(
          (i: { text: string }) => i.text === 'after release',
        ),
      );
      expect(await inbounds(a)).toEqual([]);
    });

    it('moves a number to another account, which then owns its SMS; one owner throughout', async () => {
      const from = await inboundAccount();
      const to = await inboundAccount();
      await assign(from, '4244');
      const moved = await t.admin('PATCH', `/admin/v1/accounts/${from.id}/inbound-numbers/4244`, {
        accountId: to.id,
      });
      expect(moved).toMatchObject({ status: 200, body: { channelType: 'SMS', number: '4244', accountId: to.id } });
      expect(await numbers(from)).toEqual([]);
      expect(await numbers(to)).toEqual(['4244']);
      // Only its owner moves it; to an account that does not exist, nothing moves.
      const notOwner = await t.admin('PATCH', `/admin/v1/accounts/${from.id}/inbound-numbers/4244`, {
        accountId: from.id,
      });
      expect(notOwner).toMatchObject({ status: 404, body: { error: { code: 4040 } } });
      const nowhere = await t.admin('PATCH', `/admin/v1/accounts/${to.id}/inbound-numbers/4244`, {
        accountId: 999_999_999,
      });
      expect(nowhere).toMatchObject({ status: 404, body: { error: { code: 4040 } } });
      expect(await numbers(to)).toEqual(['4244']);
      await t.simulators!.smsc.sendMo({ from: '79161230013', to: '4244', text: 'after the move' });
      await waitFor(async () => (await inbounds(to)).some((m) => m.content === 'after the move'));
      expect(await inbounds(from)).toEqual([]);
    });
  });
});
