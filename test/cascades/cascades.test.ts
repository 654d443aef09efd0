import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { SENDER, VALID } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

const VK = { channelType: 'VK', senderName: 'club1', content: 'Your code 1234', ttl: 60 };
const VIBER = { channelType: 'VIBER', senderName: 'Shop', content: { contentType: 'text', text: 'Your code 1234' } };
const SMS = { channelType: 'SMS', senderName: SENDER, content: { text: 'Your code 1234' } };
const BOT = 'shop_codes_bot';

/** VK (not read) -> VIBER (not delivered) -> SMS, as the real service's clients post it. */
const chain = (destination: string, extra: Record<string, unknown> = {}) => ({
  destination,
  cascade: [{ ...VK, condition: 'not_read' }, { ...VIBER, condition: 'not_delivered', ttl: 600 }, SMS],
  ...extra,
});

interface StepRow {
  id: string;
  cascade_step: number;
  channel_type: string;
  status: string;
  read_status: string | null;
  error_code: number | null;
}

/**
 * Cascades through the real pipeline: the SMSC simulator over SMPP for SMS, the provider simulator over HTTP for
 * VK and VIBER; outcomes by the destination's last digit (0 delivered and read, 6 delivered and never read,
 * 7 undelivered, 8 refused at submission). The clock stands still unless a test moves it.
 */
describe.each(ENGINES)('cascades (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 5 },
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    account = await t.createAccount({
      channels: { VK: true, VIBER: true, WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['TELEGRAM', BOT],
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const post = (body: unknown, token = account.traffic, headers: Record<string, string> = {}) =>
    t.call('POST', '/api/v1/message/cascade', { token, body, headers });
  const start = async (cascades: unknown[], token = account.traffic): Promise<string[]> => {
    const reply = await post(cascades, token);
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(false);
    return reply.body.items.map((i: { messageUuid: string }) => i.messageUuid);
  };
  const steps = (root: string): Promise<StepRow[]> =>
    t.testDb.db.query<StepRow>(
      `SELECT id, cascade_step, channel_type, status, read_status, error_code FROM ${messageRows()}
       WHERE cascade_id = $1 ORDER BY cascade_step`,
      [root],
    );
  const cascade = async (root: string, owner = account) =>
    (await t.call('GET', `/api/v1/message/cascade/${root}`, { token: owner.traffic })).body;
  const settled = (root: string, owner = account) =>
    untilWritten(t.herald, async () => (await cascade(root, owner)).state !== 'running', { timeoutMs: 30_000 });

  it('ends at the first step when it is read', async () => {
    const [root] = await start([chain('79161300010', { callbackUrl: receiver.url })]);
    await settled(root!);
    const rows = await steps(root!);
    expect(rows.map((r) => [r.cascade_step, r.channel_type, r.status, r.read_status])).toEqual([
      [1, 'VK', 'delivered', 'read'],
    ]);
    expect(rows[0]!.id).toBe(root);
    expect((await cascade(root!)).state).toBe('done');
  });

  it('moves on at every undelivered step to the last; every callback of a step names the cascade', async () => {
    const [root] = await start([
      chain('79161300017', { callbackUrl: receiver.url, callbackEvents: ['sent', 'delivered', 'price'] }),
    ]);
    await settled(root!);
    const rows = await steps(root!);
    expect(rows.map((r) => [r.cascade_step, r.channel_type, r.status])).toEqual([
      [1, 'VK', 'undelivered'],
      [2, 'VIBER', 'undelivered'],
      [3, 'SMS', 'undelivered'],
    ]);
    const view = await cascade(rows[1]!.id);
    expect(view).toMatchObject({ cascadeMessageUuid: root, state: 'done', currentStep: 3, stepCount: 3 });
    expect(view.steps.map((s: { movedOn: string | null }) => s.movedOn)).toEqual(['undelivered', 'undelivered', null]);
    for (const row of rows) {
      const message = (await t.call('GET', `/api/v1/message/${row.id}`, { token: account.traffic })).body;
      expect(message).toMatchObject({ cascadeMessageUuid: root, cascadeStep: row.cascade_step });
    }
    // Every callback of every step (sent, delivered, price) carries the cascade's root and the step.
    const ids = new Set(rows.map((r) => r.id));
    const ours = () =>
      receiver.received
        .flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]))
        .filter((b) => ids.has(b.message_uuid));
    // Each step: its price when created, sent, its final price, its undelivered status. A delivery that timed out
    // on a busy machine is retried at an instant of Herald's clock: the clock moves on while the test waits.
    await waitFor(() => ours().length >= 12 || void t.clock.advance(1000), {
      describe: () => JSON.stringify(ours().map((b) => [b.cascade_step, b.type ?? b.event, b.status, b.price])),
    });
    const calls = ours();
    for (const body of calls) {
      const step = rows.find((r) => r.id === body.message_uuid)!.cascade_step;
      expect(body).toMatchObject({ cascade_message_uuid: root, cascade_step: step });
    }
    expect(new Set(calls.map((c) => c.callback_event))).toEqual(new Set(['sent', 'delivered', 'price']));
  });

  it('moves on when a not_read step is delivered and not read in its lifetime, and ends at a delivery', async () => {
    const [root] = await start([chain('79161300016')]);
    await untilWritten(t.herald, async () => (await steps(root!))[0]?.status === 'delivered');
    expect(await steps(root!)).toHaveLength(1);
    // The VK step's lifetime (ttl 60) ends without a read: unread, and the VIBER step is created with it.
    t.clock.advance(61_000);
    await t.herald.jobs!.run('expire-lifetimes');
    await settled(root!);
    const rows = await steps(root!);
    expect(rows.map((r) => [r.cascade_step, r.channel_type, r.status, r.read_status])).toEqual([
      [1, 'VK', 'delivered', 'unread'],
      [2, 'VIBER', 'delivered', null],
    ]);
    expect((await cascade(root!)).steps.map((s: { movedOn: string | null }) => s.movedOn)).toEqual([
      'unread',
      null,
      null,
    ]);
  });

  it("runs the real public client's cascade to its end: VK, a TELEGRAM text (ttl 600), SMS", async () => {
    const [root] = await start([
      {
        destination: '79161300077',
        cascade: [
          { channelType: 'VK', senderName: 'club1', content: 'Code 1234', condition: 'not_delivered' },
          {
            channelType: 'TELEGRAM',
            senderName: BOT,
            content: { contentType: 'text', text: 'Code 1234' },
            condition: 'not_delivered',
            ttl: 600,
          },
          { channelType: 'SMS', senderName: SENDER, content: 'Code 1234' },
        ],
      },
    ]);
    await settled(root!);
    // A number ending in 7: undelivered on VK, no Telegram (7601 at once, without waiting out the ttl), then SMS.
    expect((await steps(root!)).map((r) => [r.channel_type, r.status, r.error_code])).toEqual([
      ['VK', 'undelivered', 1],
      ['TELEGRAM', 'undelivered', 7601],
      ['SMS', 'undelivered', 1],
    ]);
    expect((await cascade(root!)).state).toBe('done');
  });

  it('moves on after a TELEGRAM code: not_delivered when the Gateway cannot send, not_read when unread', async () => {
    const code = { channelType: 'TELEGRAM', senderName: BOT, content: { contentType: 'code', code: '1234' } };
    const [unreachable, unread, read] = await start([
      { destination: '79161300047', cascade: [{ ...code, condition: 'not_delivered' }, SMS] },
      { destination: '79161300046', cascade: [{ ...code, condition: 'not_read', ttl: 30 }, SMS] },
      { destination: '79161300040', cascade: [{ ...code, condition: 'not_read', ttl: 30 }, SMS] },
    ]);
    await settled(unreachable!);
    expect((await steps(unreachable!)).map((r) => [r.channel_type, r.status, r.error_code])).toEqual([
      ['TELEGRAM', 'unsent', 7603],
      ['SMS', 'undelivered', 1],
    ]);
    await untilWritten(t.herald, async () => (await steps(read!))[0]?.read_status === 'read');
    await untilWritten(t.herald, async () => (await steps(unread!))[0]?.status === 'delivered');
    // The code's lifetime (ttl 30) ends without a read: unread, and the SMS step follows; a read code ends it.
    t.clock.advance(31_000);
    await t.herald.jobs!.run('expire-lifetimes');
    await settled(unread!);
    expect((await steps(unread!)).map((r) => [r.channel_type, r.status, r.read_status])).toEqual([
      ['TELEGRAM', 'delivered', 'unread'],
      ['SMS', 'delivered', null],
    ]);
    expect((await steps(read!)).map((r) => [r.channel_type, r.read_status])).toEqual([['TELEGRAM', 'read']]);
  });

  it('moves on through FLASHCALL, VOICECODE and WHATSAPP steps alike', async () => {
    const other = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [['WHATSAPP', SENDER]],
    });
    const reply = await t.call('POST', '/api/v1/message/cascade', {
      token: other.traffic,
      body: [
        {
          destination: '79161300067',
          cascade: [
            { ...VALID.FLASHCALL, destination: undefined, condition: 'not_delivered' },
            { ...VALID.VOICECODE, destination: undefined, condition: 'not_delivered' },
            { ...VALID.WHATSAPP, destination: undefined },
          ],
        },
      ],
    });
    expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ errors: false });
    const root = reply.body.items[0].messageUuid as string;
    await settled(root, other);
    expect((await steps(root)).map((r) => [r.cascade_step, r.channel_type, r.status])).toEqual([
      [1, 'FLASHCALL', 'undelivered'],
      [2, 'VOICECODE', 'undelivered'],
      [3, 'WHATSAPP', 'undelivered'],
    ]);
  });

  it('moves on when a step is refused at submission (unsent)', async () => {
    const [root] = await start([
      { destination: '79161300018', cascade: [{ ...VIBER, condition: 'not_delivered' }, SMS] },
    ]);
    await settled(root!);
    expect((await steps(root!)).map((r) => [r.channel_type, r.status])).toEqual([
      ['VIBER', 'unsent'],
      ['SMS', 'unsent'],
    ]);
  });

  it('stops the whole cascade by its root: the waiting step becomes unsent and no later step is created', async () => {
    // Sent no earlier than tomorrow at 10:00 in the subscriber's zone: the first step waits in the queue.
    const [root] = await start([chain('79161300027', { localSendTime: '2026-03-11 10:00:00' })]);
    const stop = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [root] } });
    expect(stop.body.items).toEqual([{ messageUuid: root, code: 200 }]);
    expect((await steps(root!)).map((r) => [r.cascade_step, r.status, r.error_code])).toEqual([[1, 'unsent', 9003]]);
    expect(await cascade(root!)).toMatchObject({ state: 'stopped', currentStep: 1 });
    // Stopped again: nothing left to stop.
    const again = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [root] } });
    expect(again.body.items).toEqual([{ messageUuid: root, code: 403 }]);
  });

  it('stops a middle step and every later one, and leaves the steps before it', async () => {
    // The SMSC throttles: the SMS step (2) waits for its next attempt in the queue.
    t.simulators!.smsc.refuseSubmissions(0x58);
    try {
      const [root] = await start([
        {
          destination: '79161300037',
          cascade: [{ ...VK, condition: 'not_delivered' }, { ...SMS, condition: 'not_delivered' }, VIBER],
        },
      ]);
      await untilWritten(t.herald, async () => {
        const rows = await steps(root!);
        return rows.length === 2 && rows[1]!.status === 'sending';
      });
      // The connector pauses and probes on Herald's clock; after 10 s refused the step goes back to the queue.
      await waitFor(async () => {
        const [row] = await t.testDb.db.query<{ history: { status: string; retryAt?: string }[] }>(
          `SELECT history FROM ${messageRows()} WHERE cascade_id = $1 AND cascade_step = 2`,
          [root],
        );
        if (row!.history.some((h) => h.retryAt !== undefined)) return true;
        t.clock.advance(1000);
        return false;
      });
      const middle = (await steps(root!))[1]!.id;
      const stop = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [middle] } });
      expect(stop.body.items).toEqual([{ messageUuid: middle, code: 200 }]);
      expect((await steps(root!)).map((r) => [r.cascade_step, r.status])).toEqual([
        [1, 'undelivered'],
        [2, 'unsent'],
      ]);
      expect(await cascade(root!)).toMatchObject({ state: 'stopped', currentStep: 2 });
    } finally {
      t.simulators!.smsc.refuseSubmissions(undefined);
    }
  });

  it('creates a later step outside the window waiting for the next allowed instant', async () => {
    t.clock.set('2026-03-11T09:50:00Z'); // 12:50 in Moscow; the cascade may send from 12:00 to 12:59
    const [root] = await start(
      [chain('79161300056', { hours: [12], useLocalTime: false })].map((c) => ({
        ...c,
        cascade: [{ ...c.cascade[0], ttl: 900 }, ...c.cascade.slice(1)],
      })),
    );
    await untilWritten(t.herald, async () => (await steps(root!))[0]?.status === 'delivered');
    // Unread at 13:05: the VIBER step is created then, planned for tomorrow at 12:00.
    t.clock.advance(901_000);
    await t.herald.jobs!.run('expire-lifetimes');
    await untilWritten(t.herald, async () => (await steps(root!)).length === 2);
    const [planned] = await t.testDb.db.query<{ status: string; planned_send_at: Date }>(
      `SELECT status, planned_send_at FROM ${messageRows()} WHERE cascade_id = $1 AND cascade_step = 2`,
      [root],
    );
    expect(planned).toEqual({ status: 'sending', planned_send_at: new Date('2026-03-12T09:00:00Z') });
    expect(await cascade(root!)).toMatchObject({ state: 'running', currentStep: 2 });
  });

  it('creates no further step once localCompletionTime has passed', async () => {
    t.clock.set('2026-03-12T09:00:00Z'); // 12:00 in Moscow; the cascade must complete by 12:30
    const [root] = await start(
      [chain('79161300046', { localCompletionTime: '2026-03-12 12:30:00', useLocalTime: false })].map((c) => ({
        ...c,
        cascade: [{ ...c.cascade[0], ttl: 3600 }, ...c.cascade.slice(1)],
      })),
    );
    await untilWritten(t.herald, async () => (await steps(root!))[0]?.status === 'delivered');
    t.clock.advance(3601_000);
    await t.herald.jobs!.run('expire-lifetimes');
    await settled(root!);
    expect((await steps(root!)).map((r) => [r.cascade_step, r.read_status])).toEqual([[1, 'unread']]);
    expect(await cascade(root!)).toMatchObject({ state: 'done', currentStep: 1 });
  });

  it("reserves each step's price when created; a step that cannot be paid is unsent (4020) and ends it", async () => {
    for (const tariff of [
      { channelType: 'VIBER', prefix: '7903556', price: 1.5, currency: 'RUB' },
      { channelType: 'SMS', prefix: '7903556', price: 5, currency: 'RUB' },
    ])
      expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    const poor = await t.createAccount({ channels: { VIBER: true }, senderNames: [['SMS', SENDER]], balance: 2 });
    // VIBER (1.5, refused by the carrier: unsent and refunded) -> SMS (5: more than the balance of 2).
    const reply = await t.call('POST', '/api/v1/message/cascade', {
      token: poor.traffic,
      body: [
        {
          destination: '79035560008',
          callbackUrl: receiver.url,
          callbackEvents: ['delivered', 'price'],
          cascade: [{ ...VIBER, condition: 'not_delivered' }, SMS],
        },
      ],
    });
    const root = reply.body.items[0].messageUuid as string;
    await settled(root, poor);
    const rows = await steps(root);
    expect(rows.map((r) => [r.cascade_step, r.channel_type, r.status, r.error_code])).toEqual([
      [1, 'VIBER', 'unsent', expect.any(Number)],
      [2, 'SMS', 'unsent', 4020],
    ]);
    expect((await t.call('GET', '/api/v1/balance', { token: poor.traffic })).body).toEqual({ RUB: 2 });
    const ledger = (await t.admin('GET', `/admin/v1/accounts/${poor.id}/ledger`)).body.items;
    expect(ledger.map((e: { kind: string; amount: number }) => [e.kind, e.amount])).toEqual([
      ['refund', 1.5],
      ['reserve', -1.5],
      ['adjustment', 2],
    ]);
    // The step refused at its creation is called back like any unsent message, as a step of its cascade.
    const step2 = rows[1]!.id;
    // Nothing was invoiced for it, and its price (0, final at once) was set once: one price event, not two alike.
    const refused = (await t.call('GET', `/api/v1/message/${step2}`, { token: poor.traffic })).body;
    expect(refused.price).toEqual({ totalPrice: 0, currency: 'RUB', invoicedParts: 0, final: true });
    const priceEvents = await t.testDb.db.query<{ extra: unknown }>(
      "SELECT extra FROM callback_events WHERE message_id = $1 AND event = 'price'",
      [step2],
    );
    expect(priceEvents.map((e) => e.extra)).toEqual([{ parts: 1, price: 0, currency: 'RUB' }]);
    await waitFor(
      () =>
        receiver.received
          .flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]))
          .some((b) => b.message_uuid === step2 && b.callback_event === 'delivered') || void t.clock.advance(1000),
    );
    const calls = receiver.received
      .flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]))
      .filter((b) => b.message_uuid === step2);
    expect(calls.find((c) => c.callback_event === 'delivered')).toMatchObject({
      status: 'unsent',
      error_code: 4020,
      cascade_message_uuid: root,
      cascade_step: 2,
    });
  });

  it('counts each step as a message in the statistics, and groups them by step', async () => {
    // Up to a day well after the clock's: messages created at its present instant count too.
    const query = 'groupBy=cascadeStep&from=2026-03-01&to=2026-04-01';
    const stats = await t.call('GET', `/api/v1/statistics?${query}`, { token: account.system });
    expect(stats.status).toBe(200);
    const byStep = Object.fromEntries(
      stats.body.items.map((g: { key: string; messages: number }) => [g.key, g.messages]),
    );
    // Each step of the account's cascades so far, as the messages table counts them.
    const [counts] = await t.testDb.db.query<Record<string, number>>(
      `SELECT count(*) FILTER (WHERE cascade_step = 1) AS "1", count(*) FILTER (WHERE cascade_step = 2) AS "2",
         count(*) FILTER (WHERE cascade_step = 3) AS "3" FROM messages WHERE account_id = $1`,
      [account.id],
    );
    expect(byStep).toEqual(
      Object.fromEntries(
        Object.entries(counts!)
          .filter(([, n]) => Number(n) > 0)
          .map(([k, n]) => [k, Number(n)]),
      ),
    );
    expect(byStep['3']).toBeGreaterThan(0);
  });
});
