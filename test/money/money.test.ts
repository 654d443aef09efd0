import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromMicros, toMicros } from '../../src/money/amount.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

describe('amounts', () => {
  it.each([
    ['1.5', 1_500_000n, '1.500000'],
    ['0.0000005', 1n, '0.000001'],
    ['-2.25', -2_250_000n, '-2.250000'],
    [3, 3_000_000n, '3.000000'],
    ['123456789012.123456', 123_456_789_012_123_456n, '123456789012.123456'],
  ] as const)('%s', (input, micros, text) => {
    expect(toMicros(input)).toBe(micros);
    expect(fromMicros(micros)).toBe(text);
  });
});

describe.each(ENGINES)('money (DESIGN 7) (%s)', (engine) => {
  let t: TestHerald;
  let receiver: Receiver;
  const balance = async (a: TestAccount) => (await t.call('GET', '/api/v1/balance', { token: a.traffic })).body;
  const account = async (opts: { balance?: number; creditLimit?: number } = {}): Promise<TestAccount> => {
    const a = await t.createAccount({
      senderNames: [['SMS', SENDER]],
      ...(opts.balance ? { balance: opts.balance } : {}),
    });
    if (opts.creditLimit) await t.admin('PATCH', `/admin/v1/accounts/${a.id}`, { creditLimit: opts.creditLimit });
    return a;
  };

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    // Defaults: SMS 2.5 per part, 3 for Moscow numbers (7916), VK 1 in RU.
    for (const tariff of [
      { channelType: 'SMS', price: 2.5, currency: 'RUB' },
      { channelType: 'SMS', prefix: '7916', price: 3, currency: 'RUB' },
      { channelType: 'VK', country: 'RU', price: 1, currency: 'RUB' },
    ]) {
      expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('prices by the longest prefix, then the country, then the channel; an account tariff wins', async () => {
    const a = await account({ balance: 1000 });
    await t.admin('POST', '/admin/v1/tariffs', {
      accountId: a.id,
      channelType: 'SMS',
      prefix: '7916123',
      price: 0.5,
      currency: 'RUB',
    });
    const reply = await t.call('POST', '/api/v1/message', {
      token: a.traffic,
      body: [
        message('SMS', { destination: '79031234560' }),
        message('SMS', { destination: '79161111110' }),
        message('SMS', { destination: '79161234560' }),
        message('SMS', { destination: '79161111110', content: 'я'.repeat(71) }),
        message('VK', { destination: '79161111110' }),
        message('VK', { destination: '4915112345670' }),
      ],
    });
    const prices = await Promise.all(
      reply.body.items.map(
        async (item: { messageUuid: string }) =>
          (await t.call('GET', `/api/v1/message/${item.messageUuid}`, { token: a.traffic })).body.price,
      ),
    );
    expect(prices.map((p: { totalPrice: number }) => p.totalPrice)).toEqual([2.5, 3, 0.5, 6, 1, 0]);
    expect(prices[3]).toMatchObject({ currency: 'RUB', invoicedParts: 2 });
    expect(prices[5]).toMatchObject({ totalPrice: 0, currency: 'RUB' });
    expect(await balance(a)).toEqual({ RUB: 1000 - 13 });
  });

  it('reserves at generation, is final when sent, refunds when unsent, with a price event at each change', async () => {
    const a = await account({ balance: 10 });
    const reply = await t.call('POST', '/api/v1/message', {
      token: a.traffic,
      body: [
        message('SMS', {
          destination: '79031234560',
          callbackUrl: receiver.url,
          callbackEvents: ['price', 'delivered'],
        }),
        message('SMS', {
          destination: '79031234568',
          callbackUrl: receiver.url,
          callbackEvents: ['price', 'delivered'],
        }),
      ],
    });
    const [ok, rejected] = reply.body.items.map((item: { messageUuid: string }) => item.messageUuid);
    // (Both are reserved at once, -5 in the ledger below; the refused one may be refunded before a balance read.)
    await waitFor(() => receiver.events().filter((e) => e.message_uuid === rejected).length === 3);
    await waitFor(() => receiver.events().filter((e) => e.message_uuid === ok).length === 3);
    const okMessage = (await t.call('GET', `/api/v1/message/${ok}`, { token: a.traffic })).body;
    expect(okMessage).toMatchObject({
      status: 'delivered',
      price: { totalPrice: 2.5, currency: 'RUB', invoicedParts: 1, final: true },
    });
    const unsent = (await t.call('GET', `/api/v1/message/${rejected}`, { token: a.traffic })).body;
    expect(unsent).toMatchObject({
      status: 'unsent',
      price: { totalPrice: 0, currency: 'RUB', invoicedParts: 0, final: true },
    });
    expect(await balance(a)).toEqual({ RUB: 7.5 });
    const events = receiver.events().filter((e) => e.message_uuid === rejected);
    expect(events.map((e) => [e.callback_event, e.price ?? e.status])).toEqual([
      ['price', 2.5],
      ['delivered', 'unsent'],
      ['price', 0],
    ]);
    expect(events[0]).toMatchObject({ parts: 1, currency: 'RUB', price_time: expect.stringMatching(/Z$/) });
    // Reserved, then final when it was sent (DESIGN section 12), then its delivery.
    const okEvents = receiver.events().filter((e) => e.message_uuid === ok);
    expect(okEvents.map((e) => [e.callback_event, e.price ?? e.status])).toEqual([
      ['price', 2.5],
      ['price', 2.5],
      ['delivered', 'delivered'],
    ]);
    const ledger = (await t.admin('GET', `/admin/v1/accounts/${a.id}/ledger`)).body.items;
    expect(ledger.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
      ['refund', 2.5],
      ['reserve', -5],
      ['adjustment', 10],
    ]);
    const [sum] = await t.testDb.db.query<{ s: string }>(
      'SELECT sum(amount) AS s FROM balance_ledger WHERE account_id = $1',
      [a.id],
    );
    expect(Number(sum!.s)).toBe(7.5);
  });

  it('takes messages in order while balance and credit limit last; the rest get 4020', async () => {
    const a = await account({ balance: 5, creditLimit: 1 });
    const reply = await t.call('POST', '/api/v1/message', {
      token: a.traffic,
      body: [
        message('SMS', { destination: '79031234560' }),
        message('SMS', { destination: '79031234560' }),
        message('SMS', { destination: '79031234560' }),
        message('VK', { destination: '79161111110' }),
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(true);
    // The third does not fit (5 - 5 + 1 < 2.5): it and every later message of the batch are refused.
    expect(reply.body.items.map((i: { code: number }) => i.code)).toEqual([201, 201, 4020, 4020]);
    expect(reply.body.items[2]).toEqual({ code: 4020, msg: 'Insufficient funds' });
    expect(await balance(a)).toEqual({ RUB: 0 });
    const vk = () =>
      t.call('POST', '/api/v1/message', { token: a.traffic, body: [message('VK', { destination: '79161111110' })] });
    expect((await vk()).body.items[0].code).toBe(201);
    expect(await balance(a)).toEqual({ RUB: -1 });
    expect((await vk()).body.items[0].code).toBe(4020);
  });

  it('never lets concurrent batches take the balance below the credit limit', async () => {
    const a = await account({ balance: 20, creditLimit: 4 });
    const replies = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.call('POST', '/api/v1/message', {
          token: a.traffic,
          body: Array.from({ length: 3 }, () => message('VK', { destination: '79161111110' })),
        }),
      ),
    );
    const accepted = replies.flatMap((r) => r.body.items).filter((i: { code: number }) => i.code === 201).length;
    expect(accepted).toBe(24);
    expect(await balance(a)).toEqual({ RUB: -4 });
  });

  it('refuses an unpriced message with 4021 when tariffs are required', async () => {
    const strict = await startTestHerald(engine, { env: { HERALD_REQUIRE_TARIFF: 'true' } });
    try {
      const a = await strict.createAccount({ senderNames: [['SMS', SENDER]] });
      await strict.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', price: 0, currency: 'RUB' });
      const reply = await strict.call('POST', '/api/v1/message', {
        token: a.traffic,
        body: [message('SMS'), message('VK')],
      });
      expect(reply.body.items[0].code).toBe(201);
      expect(reply.body.items[1]).toEqual({ code: 4021, msg: 'No tariff for (VK, 79161234567)' });
    } finally {
      await strict.close();
    }
  });

  it('reads stale tariff and template caches through the transaction that needs them', async () => {
    // A cascade's next step is priced in the transaction that records the outcome before it. The embedded database
    // has one connection: a read of the caches on another would wait for that transaction, which waits for it.
    const { ctx } = t.herald;
    const a = await account();
    const price = await t.testDb.db.transaction(async (tx) => {
      ctx.tariffs.invalidate();
      ctx.templates.invalidate();
      await ctx.tariffs.refresh(tx);
      const match = await ctx.templates.forAccount(a.id, tx);
      expect(match('SMS', SENDER, 'Hello', new Date())).toBeUndefined();
      return ctx.tariffs.lookup(a.id, 'SMS', '79161234567', 'RU');
    });
    expect(price).toEqual({ perPart: 3, currency: 'RUB' });
  });

  it('manages tariffs through the operator API', async () => {
    const created = await t.admin('POST', '/admin/v1/tariffs', {
      channelType: 'VIBER',
      country: 'DE',
      price: 0.75,
      currency: 'EUR',
    });
    expect(created.body).toMatchObject({
      channelType: 'VIBER',
      country: 'DE',
      price: 0.75,
      currency: 'EUR',
      accountId: null,
      source: 'api',
    });
    expect((await t.admin('GET', '/admin/v1/tariffs')).body.items.map((x: { id: number }) => x.id)).toContain(
      created.body.id,
    );
    expect((await t.admin('DELETE', `/admin/v1/tariffs/${created.body.id}`)).status).toBe(204);
    expect((await t.admin('DELETE', `/admin/v1/tariffs/${created.body.id}`)).status).toBe(404);
    expect(
      (
        await t.admin('POST', '/admin/v1/tariffs', {
          channelType: 'SMS',
          prefix: '7',
          country: 'RU',
          price: 1,
          currency: 'RUB',
        })
      ).status,
    ).toBe(422);
    expect(
      (await t.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', price: -1, currency: 'RUB' })).status,
    ).toBe(422);
  });

  it('refuses an empty or malformed prefix with 4220 instead of making a default for every destination', async () => {
    const before = (await t.admin('GET', '/admin/v1/tariffs')).body.items.length;
    for (const prefix of ['', ' ', '7 916', '+7']) {
      const refused = await t.admin('POST', '/admin/v1/tariffs', {
        channelType: 'SMS',
        prefix,
        price: 1,
        currency: 'RUB',
      });
      expect(refused.status, JSON.stringify(prefix)).toBe(422);
      expect(refused.body.error.code).toBe(4220);
      expect(refused.body.error.msg).toMatch(/prefix/);
    }
    expect((await t.admin('GET', '/admin/v1/tariffs')).body.items).toHaveLength(before);
  });
});
