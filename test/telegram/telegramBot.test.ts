import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botWebhookSecret } from '../../src/connectors/index.js';
import { SIM_TELEGRAM_IDS } from '../../src/simulators/embeddedSimulators.js';
import { telegramUserId, type TelegramBotApi } from '../../src/simulators/telegramBotApi.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { Receiver } from '../helpers/receiver.js';
import { untilSignalled, untilWritten } from '../helpers/signals.js';
import { startTestHerald, testBotToken, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const BOT = 'shop_news_bot';

/**
 * TELEGRAM texts over the Bot API (DESIGN 18) through the Telegram simulator on a real socket, with links made as a
 * subscriber makes them (sharing a contact in the bot's chat), not the simulators' "every number is linked".
 */
describe.each(ENGINES)('TELEGRAM over the Bot API (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let bot: TelegramBotApi;
  let receiver: Receiver;
  let botId: number;

  const send = async (destination: string, text = 'Your order has shipped') => {
    const [id] = await t.send(account.traffic, [
      { channelType: 'TELEGRAM', senderName: BOT, destination, content: { contentType: 'text', text } },
    ]);
    return id!;
  };
  const get = async (id: string) =>
    (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;
  const final = (id: string) =>
    untilWritten(t.herald, async () => {
      const m = await get(id);
      return ['delivered', 'undelivered', 'unsent'].includes(m.status) && m;
    });
  const metric = async (name: string, connector: string): Promise<number> => {
    const text = String((await call(t.url, 'GET', '/metrics')).body);
    const line = text.split('\n').find((l) => l.startsWith(`${name}{connector="${connector}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10, simulatedTelegramLinks: false },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    bot = t.simulators!.telegram.bot;
    account = await t.createAccount({ senderNames: [['TELEGRAM', BOT]], balance: 100 });
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { inbound: true });
    await t.admin('POST', '/admin/v1/tariffs', { channelType: 'TELEGRAM', price: 0.5, currency: 'RUB' });
    const names = await t.call('GET', '/api/v1/sender-names', { token: account.system });
    botId = names.body.items.find((n: { name: string }) => n.name === BOT).id;
    const centers = await t.call('GET', '/api/v1/traffic-centers', { token: account.system });
    const rule = await t.call('POST', '/api/v1/inbound-rules', {
      token: account.system,
      body: {
        trafficCenterId: centers.body.items[0].id,
        channelType: 'TELEGRAM',
        callbackUrl: receiver.url,
        senderNames: [BOT],
      },
    });
    expect(rule.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it("registers the bot's webhook with its secret token when the operator attaches the token", async () => {
    const webhook = bot.webhookOf(BOT)!;
    expect(webhook.url).toBe(`${t.url}/webhooks/${SIM_TELEGRAM_IDS.bot}/bots/${botId}`);
    expect(webhook.secretToken).toBe(botWebhookSecret(testBotToken(botId)));
    // A second attachment answers how it went, and never shows the token.
    const again = await t.admin('PATCH', `/admin/v1/sender-names/${botId}`, { botToken: testBotToken(botId) });
    expect(again.status).toBe(200);
    expect(again.body.webhook).toBe(`registered at ${webhook.url}`);
    expect(JSON.stringify(again.body)).not.toContain(testBotToken(botId).split(':')[1]);
  });

  it("refuses a token Telegram does not know, or another bot's, and keeps the old one", async () => {
    const unknown = await t.admin('PATCH', `/admin/v1/sender-names/${botId}`, {
      botToken: '999999:AAE-nobody-knows-this-token-0000000000',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.msg).toContain('Telegram refused it: Unauthorized');
    bot.addBot('888888:AAE-another-bots-token-000000000000000', 'other_bot');
    const another = await t.admin('PATCH', `/admin/v1/sender-names/${botId}`, {
      botToken: '888888:AAE-another-bots-token-000000000000000',
    });
    expect(another.status).toBe(422);
    expect(another.body.error.msg).toContain('it is the token of @other_bot, not of @shop_news_bot');
    // Another account may ask for the same bot's name, but not have its token: a bot has one webhook.
    const rival = await t.createAccount({ senderNames: [['TELEGRAM', BOT]], botTokens: { [BOT]: null } });
    const rivalNames = await t.call('GET', '/api/v1/sender-names', { token: rival.system });
    const rivalBot = rivalNames.body.items.find((n: { name: string }) => n.name === BOT).id;
    const taken = await t.admin('PATCH', `/admin/v1/sender-names/${rivalBot}`, { botToken: testBotToken(botId) });
    expect(taken.status).toBe(422);
    expect(taken.body.error.msg).toContain(`attached to account ${account.id} already`);
    // The bot still sends with its own token: a text to a linked number is delivered (below), not refused 401.
    expect(bot.webhookOf(BOT)!.secretToken).toBe(botWebhookSecret(testBotToken(botId)));
  });

  it('answers /start with a contact button; a text to a number with no link is undelivered 7601 at once', async () => {
    const start = await bot.write(BOT, '79160000011', { kind: 'start' });
    expect(start.status).toBe(200);
    expect(start.reply?.method).toBe('sendMessage');
    expect(start.reply?.params.reply_markup).toMatchObject({ keyboard: [[{ request_contact: true }]] });
    expect(start.reply?.answer.status).toBe(200);

    const id = await send('79160000011');
    const m = await final(id);
    expect(m).toMatchObject({ status: 'undelivered', errorCode: 7601 });
    expect(m.statusHistory.map((h: { status: string }) => h.status)).toEqual(['sending', 'sent', 'undelivered']);
    expect(bot.sent.filter((s) => s.text === 'Your order has shipped')).toEqual([]);
  });

  it("refuses a contact that is not the sender's own: the number stays unlinked", async () => {
    const shared = await bot.write(BOT, '79160000021', { kind: 'contact', phoneNumber: '79160000022' });
    expect(shared.status).toBe(200);
    expect(String(shared.reply?.params.text)).toContain('your own');
    const toOther = await final(await send('79160000022'));
    expect(toOther).toMatchObject({ status: 'undelivered', errorCode: 7601 });
  });

  it('links a number by its own contact, and a text to it is sendMessage to its chat: delivered, charged', async () => {
    const linked = await bot.write(BOT, '79160000031', { kind: 'contact' });
    expect(String(linked.reply?.params.text)).toContain('+79160000031');
    const id = await send('79160000031', 'Linked at last');
    const m = await final(id);
    expect(m).toMatchObject({ status: 'delivered', errorCode: null, readStatus: null });
    expect(m.price).toMatchObject({ totalPrice: 0.5, final: true });
    // Nothing comes later for a text: its submission is not kept for receipts to find.
    const kept = await t.testDb.db.query('SELECT 1 FROM submissions WHERE message_id = $1', [id]);
    expect(kept).toHaveLength(0);
    expect(bot.sent).toContainEqual(
      expect.objectContaining({ chatId: String(telegramUserId('79160000031')), text: 'Linked at last', status: 200 }),
    );
  });

  it('a subscriber who blocked the bot is undelivered 7602 and loses the link', async () => {
    await bot.write(BOT, '79160000038', { kind: 'contact' });
    expect(await final(await send('79160000038'))).toMatchObject({ status: 'undelivered', errorCode: 7602 });
    // The link is gone: the next text is not even tried.
    const calls = bot.sent.length;
    expect(await final(await send('79160000038', 'After the block'))).toMatchObject({
      status: 'undelivered',
      errorCode: 7601,
    });
    expect(bot.sent.length).toBe(calls);
  });

  it('a 429 is sent again after retry_after', async () => {
    await bot.write(BOT, '79160000041', { kind: 'contact' });
    bot.throttle(BOT, 1, 2);
    const id = await send('79160000041', 'Slowly');
    const retried = await untilWritten(t.herald, async () => {
      const m = await get(id);
      return m.statusHistory.some((h: { retryAt?: string }) => h.retryAt) && m;
    });
    expect(retried.status).toBe('sending');
    t.clock.advance(2000);
    expect(await final(id)).toMatchObject({ status: 'delivered' });
    expect(bot.sent.filter((s) => s.text === 'Slowly').map((s) => s.status)).toEqual([429, 200]);
  });

  it("routes a linked subscriber's message by the inbound rules and calls it back; asks others to link", async () => {
    await bot.write(BOT, '79160000051', { kind: 'contact' });
    const wrote = await bot.write(BOT, '79160000051', { kind: 'text', text: 'Where is my parcel?' });
    expect(wrote.status).toBe(200);
    const event = await untilSignalled(t.herald.callbackSender!.testSignals.round, () =>
      receiver.events().find((e) => e.callback_event === 'inbound_sent' && e.item?.destination === '79160000051'),
    );
    expect(event.item).toMatchObject({
      channelType: 'TELEGRAM',
      senderName: BOT,
      status: 'inbound_sent',
      content: { contentType: 'text', text: 'Where is my parcel?' },
    });
    const list = await t.call('GET', '/api/v1/message?direction=inbound&channel_type=TELEGRAM', {
      token: account.traffic,
    });
    expect(list.body.items.filter((i: { destination: string }) => i.destination === '79160000051')).toHaveLength(1);

    const stranger = await bot.write(BOT, '79160000052', { kind: 'text', text: 'Hello?' });
    expect(stranger.reply?.params.reply_markup).toMatchObject({ keyboard: [[{ request_contact: true }]] });
  });

  it('refuses an update without the secret token, or with a wrong one, and counts it', async () => {
    const before = await metric('herald_webhook_signature_failures_total', SIM_TELEGRAM_IDS.bot);
    const path = `/webhooks/${SIM_TELEGRAM_IDS.bot}/bots/${botId}`;
    const update = { update_id: 1, message: { message_id: 1, chat: { id: 1, type: 'private' }, from: { id: 1 } } };
    const none = await call(t.url, 'POST', path, { body: update });
    const wrong = await call(t.url, 'POST', path, {
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': botWebhookSecret('1:another-token') },
    });
    expect([none.status, wrong.status]).toEqual([401, 401]);
    expect(wrong.body.error.code).toBe(4012);
    expect(await metric('herald_webhook_signature_failures_total', SIM_TELEGRAM_IDS.bot)).toBe(before + 2);
    // A positive control: the right secret is taken.
    const right = await call(t.url, 'POST', path, {
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': botWebhookSecret(testBotToken(botId)) },
    });
    expect(right.status).toBe(200);
  });
});
