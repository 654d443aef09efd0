import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TelegramGatewayConnectorConfig } from '../../src/connectors/index.js';
import { SIM_TELEGRAM_IDS } from '../../src/simulators/embeddedSimulators.js';
import { gatewayReportSignature, type TelegramGatewayApi } from '../../src/simulators/telegramGatewayApi.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { Receiver } from '../helpers/receiver.js';
import { untilWritten } from '../helpers/signals.js';
import { waitFor } from '../helpers/waitFor.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const BOT = 'codes_bot';
const PRICE = 0.5;

/** A Herald with the simulators, an account with a bot and 100 RUB, and a TELEGRAM price of 0.5 RUB. */
async function gatewayHerald(engine: Parameters<typeof startTestHerald>[0], delayMs: number, clock: TestClock) {
  const t = await startTestHerald(engine, {
    delivery: { delayMs },
    clock,
    env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
  });
  const account = await t.createAccount({ senderNames: [['TELEGRAM', BOT]], balance: 100 });
  await t.admin('POST', '/admin/v1/tariffs', { channelType: 'TELEGRAM', price: PRICE, currency: 'RUB' });
  return { t, account };
}

function helpers(get: () => { t: TestHerald; account: TestAccount }) {
  const send = async (destination: string, extra: Record<string, unknown> = {}) => {
    const { t, account } = get();
    const [id] = await t.send(account.traffic, [
      {
        channelType: 'TELEGRAM',
        senderName: BOT,
        destination,
        content: { contentType: 'code', code: '123456' },
        ...extra,
      },
    ]);
    return id!;
  };
  const message = async (id: string) => {
    const { t, account } = get();
    return (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;
  };
  const until = (id: string, done: (m: Record<string, any>) => boolean) =>
    untilWritten(get().t.herald, async () => {
      const m = await message(id);
      return done(m) && m;
    });
  const balance = async () => {
    const { t, account } = get();
    const reply = await t.call('GET', '/api/v1/balance', { token: account.traffic });
    return Number(reply.body.balance ?? reply.body.items?.[0]?.balance ?? reply.body.amount);
  };
  return { send, message, until, balance };
}

/** Telegram's Gateway reports of a message, by the payload Herald gave it (the message id). */
const reportsOf = (gateway: TelegramGatewayApi, id: string) =>
  gateway.reports.map((r) => JSON.parse(r.body)).filter((r) => r.payload === id);

describe.each(ENGINES)('TELEGRAM codes over the Gateway API (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let gateway: TelegramGatewayApi;
  const { send, until, balance } = helpers(() => ({ t, account }));
  const metric = async (connector: string): Promise<number> => {
    const text = String((await call(t.url, 'GET', '/metrics')).body);
    const name = `herald_webhook_signature_failures_total{connector="${connector}"}`;
    const line = text.split('\n').find((l) => l.startsWith(name));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  beforeAll(async () => {
    ({ t, account } = await gatewayHerald(engine, 10, new TestClock('2026-03-10T09:00:00Z', { flowing: true })));
    gateway = t.simulators!.telegram.gateway;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('checks the number, sends the code with its request id, and reports become delivered and read', async () => {
    const id = await send('79160000010', { ttl: 120 });
    const m = await until(id, (x) => x.readStatus === 'read');
    expect(m).toMatchObject({ status: 'delivered', readStatus: 'read', errorCode: null });
    expect(m.price).toMatchObject({ totalPrice: PRICE, final: true });
    // The simulator notes a report once Herald has answered it, just after Herald recorded it: reports posted close
    // together (delivered, then read) may be answered in either order, as a carrier's webhooks may arrive.
    const reports = await waitFor(() => reportsOf(gateway, id).length === 3 && reportsOf(gateway, id));
    expect(reports.map((r) => r.delivery_status.status).sort()).toEqual(['delivered', 'read', 'sent']);
    const request = gateway.request(reports[0].request_id)!;
    expect(request).toMatchObject({ phoneNumber: '+79160000010', code: '123456', payload: id });
    expect(request.callbackUrl).toBe(`${t.url}/webhooks/${SIM_TELEGRAM_IDS.gateway}`);
    // A code's reports find it by its request id.
    const kept = await t.testDb.db.query<{ carrier_id: string }>(
      'SELECT carrier_id FROM submissions WHERE message_id = $1',
      [id],
    );
    expect(kept).toEqual([{ carrier_id: reports[0].request_id }]);
  });

  it('a code delivered and never read stays delivered, its read status unset', async () => {
    const id = await send('79160000016');
    const m = await until(id, (x) => x.status === 'delivered');
    expect(m.readStatus).toBeNull();
    const reports = await waitFor(() => reportsOf(gateway, id).length === 2 && reportsOf(gateway, id));
    expect(reports.map((r) => r.delivery_status.status).sort()).toEqual(['delivered', 'sent']);
  });

  it('a code a number cannot receive is unsent 7603, not charged; a revoked code is unsent, refunded', async () => {
    const before = await balance();
    const unreachable = await send('79160000017');
    const revoked = await send('79160000018');
    expect(await until(unreachable, (x) => x.status === 'unsent')).toMatchObject({ errorCode: 7603 });
    const r = await until(revoked, (x) => x.status === 'unsent');
    expect(r.statusHistory.map((h: { status: string }) => h.status)).toEqual(['sending', 'sent', 'unsent']);
    expect(await balance()).toBe(before);
  });

  it('refuses a report with a wrong signature or an old timestamp, and counts it', async () => {
    const token = (
      t.herald.ctx.configFile.connectors.find(
        (c) => c.id === SIM_TELEGRAM_IDS.gateway,
      ) as TelegramGatewayConnectorConfig
    ).token;
    const before = await metric(SIM_TELEGRAM_IDS.gateway);
    const body = JSON.stringify({ request_id: 'nobody', phone_number: '+79160000010', request_cost: 0.01 });
    const post = (timestamp: string, signature: string) =>
      call(t.url, 'POST', `/webhooks/${SIM_TELEGRAM_IDS.gateway}`, {
        rawBody: body,
        headers: {
          'content-type': 'application/json',
          'x-request-timestamp': timestamp,
          'x-request-signature': signature,
        },
      });
    const now = String(Math.floor(t.clock.now().getTime() / 1000));
    const old = String(Number(now) - 3600);
    const wrong = await post(now, gatewayReportSignature('another token', now, body));
    const stale = await post(old, gatewayReportSignature(token, old, body));
    expect([wrong.status, stale.status]).toEqual([401, 401]);
    expect(wrong.body.error.code).toBe(4012);
    expect(await metric(SIM_TELEGRAM_IDS.gateway)).toBe(before + 2);
    // A positive control: signed as the Gateway signs, now.
    expect((await post(now, gatewayReportSignature(token, now, body))).status).toBe(200);
  });
});

describe.each(ENGINES)('TELEGRAM codes the Gateway refunds (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const { send, until, balance, message } = helpers(() => ({ t, account }));

  beforeAll(async () => {
    receiver = await new Receiver().start();
    // The Gateway takes a minute a step: a code with a ttl of 30 s expires before it is delivered.
    ({ t, account } = await gatewayHerald(engine, 60_000, clock));
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('an expired code is undelivered; its price goes back when Telegram refunds it (a price event of 0)', async () => {
    const before = await balance();
    const id = await send('79160000011', {
      ttl: 30,
      callbackUrl: receiver.url,
      callbackEvents: ['delivered', 'price'],
    });
    await until(id, (x) => x.status === 'sent');
    expect(await balance()).toBe(before - PRICE);
    clock.advance(31_000);
    // The receipt is written first, then the refund, before the report is answered (outside the writer's batches).
    const m = await waitFor(async () => {
      const x = await message(id);
      return x.status === 'undelivered' && x.price.totalPrice === 0 && x;
    });
    expect(m.price.final).toBe(true);
    expect(await balance()).toBe(before);
    // Reserved at generation, final when sent, then 0 when refunded: in the outbox, in that order.
    const prices = await t.testDb.db.query<{ price: number }>(
      `SELECT (extra->>'price')::float AS price FROM callback_events
       WHERE message_id = $1 AND event = 'price' ORDER BY id`,
      [id],
    );
    expect(prices.map((e) => e.price)).toEqual([PRICE, PRICE, 0]);
  });
});
