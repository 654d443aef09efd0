import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSettings, foldKeyword, matchKeyword } from '../../src/optout/keywords.js';
import { maskedNumber, pageLanguage } from '../../src/optout/unsubscribePage.js';
import { deliverSubscriberSms } from '../../src/simulators/subscriberSms.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message } from '../messages/messageFixtures.js';

const SHOP = 'Shop';
/** WhatsApp numbers and bots have one owner each: an account's own, named after its inbound number. */
const whatsappName = (inboundNumber: string): string => `Shop${inboundNumber}`;
const botName = (inboundNumber: string): string => `shop${inboundNumber}_bot`;
const INBOUND_NUMBER = '4242';
const BASE = 'http://127.0.0.1:1/s';

describe('opt-out keywords', () => {
  it('match a whole text, trimmed, in any case of any script', () => {
    const keywords = ['STOP', 'СТОП', 'Straße'];
    expect(matchKeyword('  stop \n', keywords)).toBe('STOP');
    expect(matchKeyword('сТоП', keywords)).toBe('СТОП');
    expect(matchKeyword('STRASSE', keywords)).toBe('Straße');
    expect(matchKeyword('ＳＴＯＰ', keywords)).toBe('STOP');
    expect(matchKeyword('stop please', keywords)).toBeUndefined();
    expect(matchKeyword('', keywords)).toBeUndefined();
    expect(matchKeyword(`STOP${' '.repeat(1000)}`, keywords)).toBeUndefined();
    expect(foldKeyword(' Отписка ')).toBe(foldKeyword('ОТПИСКА'));
  });

  it('are kept trimmed and once each; blank or long ones and a long reply are refused', () => {
    expect(checkSettings({ keywords: [' Stop ', 'STOP', 'stop', 'Halt'], reply: null })).toEqual({
      keywords: ['Stop', 'Halt'],
      reply: null,
    });
    expect(() => checkSettings({ keywords: ['STOP', '  '] })).toThrow('Invalid keywords: "  "');
    expect(() => checkSettings({ keywords: ['x'.repeat(41)] })).toThrow('Invalid keywords');
    expect(checkSettings({ keywords: ['x'.repeat(40)] }).keywords).toEqual(['x'.repeat(40)]);
    expect(() => checkSettings({ keywords: ['STOP'], reply: 'я'.repeat(161) })).toThrow('Invalid reply');
    expect(checkSettings({ keywords: ['STOP'], reply: 'я'.repeat(160) }).reply).toHaveLength(160);
  });

  it("the unsubscribe page speaks the browser's language and shows little of the number", () => {
    expect(pageLanguage('ru-RU,ru;q=0.9,en;q=0.8')).toBe('ru');
    expect(pageLanguage('en-GB,ru;q=0.5')).toBe('en');
    expect(pageLanguage('ru')).toBe('ru');
    expect(pageLanguage(undefined)).toBe('en');
    expect(maskedNumber('79161230001')).toBe('+•••••••0001');
  });
});

interface StopRow {
  number: string;
  channel_type: string | null;
  sender_name: string | null;
  traffic_types: string[] | null;
  source: string;
}

describe.each(ENGINES)('opt-out: keywords, reply, unsubscribe links (DESIGN 20) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  const entries = async (owner: TestAccount, number: string): Promise<StopRow[]> =>
    t.testDb.db.query<StopRow>(
      `SELECT number, channel_type, sender_name, traffic_types, source FROM stop_list_entries
       WHERE account_id = $1 AND number = $2 ORDER BY id`,
      [owner.id, number],
    );
  const sendOne = async (owner: TestAccount, fields: Record<string, unknown>) =>
    (await t.call('POST', '/api/v1/message', { token: owner.traffic, body: [fields] })).body.items[0];
  const sms = (destination: string, trafficType: string, content = 'Sale today') =>
    message('SMS', { senderName: SHOP, destination, trafficType, content });
  const whatsapp = (senderName: string, destination: string, trafficType: string) =>
    message('WHATSAPP', { senderName, destination, trafficType, content: { contentType: 'text', text: 'Hi' } });
  const outbound = async (owner: TestAccount, destination: string) =>
    (await t.call('GET', `/api/v1/message?destination=${destination}`, { token: owner.traffic })).body.items;
  const inboundTexts = async (owner: TestAccount) =>
    (await t.call('GET', '/api/v1/message?direction=inbound', { token: owner.traffic })).body.items.map(
      (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : (m.content as { text: string }).text),
    );
  const whatsappInbound = (senderName: string, from: string, text: string) =>
    call(t.simulators!.providers.url, 'POST', '/sim/v1/inbound', {
      body: { channelType: 'WHATSAPP', from, senderName, text },
    });
  const balance = async (owner: TestAccount): Promise<number> =>
    (await t.call('GET', '/api/v1/balance', { token: owner.traffic })).body.RUB;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_SHORT_URL_BASE: BASE },
    });
    account = await newAccount();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** An account with SMS, WhatsApp and TELEGRAM sender names, an inbound number, priced traffic and a balance. */
  async function newAccount(number = INBOUND_NUMBER): Promise<TestAccount> {
    const a = await t.createAccount({
      senderNames: [
        ['SMS', SHOP],
        ['WHATSAPP', whatsappName(number)],
        ['TELEGRAM', botName(number)],
      ],
      channels: { WHATSAPP: true, TELEGRAM: true },
      balance: 1000,
    });
    await t.admin('PATCH', `/admin/v1/accounts/${a.id}`, { inbound: true });
    const assigned = await t.admin('POST', `/admin/v1/accounts/${a.id}/inbound-numbers`, {
      channelType: 'SMS',
      number,
    });
    expect(assigned.status).toBe(201);
    for (const channelType of ['SMS', 'WHATSAPP', 'TELEGRAM']) {
      const tariff = { accountId: a.id, channelType, price: 2.5, currency: 'RUB' };
      expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    }
    return a;
  }

  describe('settings (TOKEN_2)', () => {
    it('start with the default keywords and no reply, and take new ones', async () => {
      const a = await newAccount('4250');
      const initial = await t.call('GET', '/api/v1/opt-out', { token: a.system });
      expect(initial).toMatchObject({
        status: 200,
        body: { keywords: ['STOP', 'СТОП', 'ОТПИСКА', 'UNSUBSCRIBE'], reply: null },
      });
      const put = await t.call('PUT', '/api/v1/opt-out', {
        token: a.system,
        body: { keywords: [' Halt ', 'HALT', 'Стоп'], reply: 'You will get no more offers.' },
      });
      expect(put).toMatchObject({
        status: 200,
        body: { keywords: ['Halt', 'Стоп'], reply: 'You will get no more offers.' },
      });
      expect((await t.call('GET', '/api/v1/opt-out', { token: a.system })).body).toEqual(put.body);
      // Only the account's own keywords count now: STOP is an ordinary text, Halt opts out.
      await t.simulators!.smsc.sendMo({ from: '79161230051', to: '4250', text: 'STOP' });
      await t.simulators!.smsc.sendMo({ from: '79161230052', to: '4250', text: 'halt' });
      await waitFor(async () => (await inboundTexts(a)).includes('halt'));
      await waitFor(async () => (await entries(a, '79161230052')).length === 1);
      expect(await entries(a, '79161230051')).toEqual([]);
    });

    it('refuse what is out of bounds, with the API error format', async () => {
      const put = (body: unknown, token = account.system) => t.call('PUT', '/api/v1/opt-out', { token, body });
      const cases: [unknown, number, string | RegExp][] = [
        [{ keywords: [] }, 4220, /keywords/],
        [{ keywords: Array.from({ length: 21 }, (_, i) => `K${i}`) }, 4220, /keywords/],
        [{ keywords: ['  '] }, 4220, 'Invalid keywords: "  "'],
        [{ keywords: ['x'.repeat(41)] }, 4220, /Invalid keywords/],
        [{ keywords: ['STOP'], reply: 'x'.repeat(161) }, 4220, 'Invalid reply'],
        [{ keywords: ['STOP'], reply: '\uFEFFHi' }, 4220, /Invalid reply/],
        [{ keywords: ['STOP'], other: 1 }, 4220, /other/],
        [{ keywords: 'STOP' }, 4220, /keywords/],
      ];
      for (const [body, code, msg] of cases) {
        const reply = await put(body);
        expect(reply.status, JSON.stringify(body)).toBe(422);
        expect(reply.body.error.code).toBe(code);
        expect(reply.body.error.msg).toMatch(msg);
      }
      // A body larger than any valid one is refused before it is read.
      expect((await put({ keywords: ['x'.repeat(20_000)] })).body.error.code).toBe(4130);
      // A traffic token is not a settings token.
      expect(await put({ keywords: ['STOP'] }, account.traffic)).toMatchObject({
        status: 403,
        body: { error: { code: 4030 } },
      });
      // Positive control: the same account takes bounded settings, at the bounds.
      const ok = await put({ keywords: Array.from({ length: 20 }, (_, i) => `K${i}`), reply: 'x'.repeat(160) });
      expect(ok.status).toBe(200);
      await put({ keywords: ['STOP', 'СТОП', 'ОТПИСКА', 'UNSUBSCRIBE'], reply: null });
    });
  });

  it('an SMS keyword to an inbound number opts out of every sender name: PROMO out, AUTHORIZE goes', async () => {
    const subscriber = '79161230001';
    // Positive control: before the opt-out a promotion goes.
    expect(await sendOne(account, sms(subscriber, 'PROMO'))).toMatchObject({ code: 201 });
    // Not a keyword: a sentence that holds one.
    await t.simulators!.smsc.sendMo({ from: subscriber, to: INBOUND_NUMBER, text: 'STOP please' });
    await waitFor(async () => (await inboundTexts(account)).includes('STOP please'), {
      describe: async () => JSON.stringify(await inboundTexts(account)),
    });
    expect(await entries(account, subscriber)).toEqual([]);

    await t.simulators!.smsc.sendMo({ from: subscriber, to: INBOUND_NUMBER, text: '  stop ' });
    // The inbound is still stored (and called back) as any other.
    await waitFor(async () => (await inboundTexts(account)).includes('  stop '), {
      describe: async () => JSON.stringify(await inboundTexts(account)),
    });
    expect(await entries(account, subscriber)).toEqual([
      {
        number: subscriber,
        channel_type: 'SMS',
        sender_name: null,
        traffic_types: ['SERVICE', 'PROMO'],
        source: 'keyword',
      },
    ]);
    // The client reads it on its stop list.
    const listed = await t.call('GET', `/api/v1/stop-list?number=${subscriber}`, { token: account.system });
    expect(listed.body.items).toEqual([
      expect.objectContaining({
        number: subscriber,
        channelType: 'SMS',
        senderName: null,
        trafficTypes: ['SERVICE', 'PROMO'],
        source: 'keyword',
      }),
    ]);
    expect(await sendOne(account, sms(subscriber, 'PROMO'))).toEqual({
      code: 4032,
      msg: 'Destination is on the stop list',
    });
    expect(await sendOne(account, sms(subscriber, 'SERVICE'))).toMatchObject({ code: 4032 });
    const code = await sendOne(account, sms(subscriber, 'AUTHORIZE', 'Your code 1234'));
    expect(code).toMatchObject({ code: 201 });
    await waitFor(
      async () => {
        const m = await t.call('GET', `/api/v1/message/${code.messageUuid}`, { token: account.traffic });
        return m.body.status === 'delivered';
      },
      { describe: () => 'AUTHORIZE not delivered' },
    );
    // The opt-out is the account's: another account's promotion to the same number goes.
    const other = await t.createAccount({ senderNames: [['SMS', SHOP]], balance: 100 });
    expect(await sendOne(other, sms(subscriber, 'PROMO'))).toMatchObject({ code: 201 });
    // Writing the keyword again adds nothing.
    // In Cyrillic (UCS-2), as a subscriber's phone sends it.
    expect(
      await deliverSubscriberSms(t.simulators!.smsc, {
        channelType: 'SMS',
        from: subscriber,
        to: INBOUND_NUMBER,
        text: 'СТОП',
      }),
    ).toEqual({ parts: 1 });
    await waitFor(async () => (await inboundTexts(account)).includes('СТОП'));
    expect(await entries(account, subscriber)).toHaveLength(1);
  });

  it('a WhatsApp keyword lists the subscriber for that sender name and channel, and the reply goes free', async () => {
    const a = await newAccount('4251');
    await t.call('PUT', '/api/v1/opt-out', {
      token: a.system,
      body: { keywords: ['STOP', 'UNSUBSCRIBE'], reply: 'Done: no more offers from Shop.' },
    });
    const subscriber = '79161230002';
    const name = whatsappName('4251');
    expect(await sendOne(a, whatsapp(name, subscriber, 'PROMO'))).toMatchObject({ code: 201 });
    const before = await waitFor(
      async () => {
        const sent = await outbound(a, subscriber);
        return sent.length === 1 && sent[0].readStatus === 'read' ? balance(a) : undefined;
      },
      { describe: async () => JSON.stringify(await outbound(a, subscriber)) },
    );

    expect((await whatsappInbound(name, `+${subscriber}`, 'Unsubscribe')).status).toBe(200);
    await waitFor(async () => (await inboundTexts(a)).includes('Unsubscribe'));
    expect(await entries(a, subscriber)).toEqual([
      expect.objectContaining({ channel_type: 'WHATSAPP', sender_name: name, source: 'keyword' }),
    ]);
    // The reply: on WhatsApp from the sender name written to, a TRANSACT message, free, delivered.
    const reply = await waitFor(async () =>
      (await outbound(a, subscriber)).find(
        (m: { content: { text?: string }; status: string }) =>
          m.content?.text === 'Done: no more offers from Shop.' && m.status === 'delivered',
      ),
    );
    expect(reply).toMatchObject({
      channelType: 'WHATSAPP',
      senderName: name,
      trafficType: 'TRANSACT',
      price: { totalPrice: 0 },
    });
    expect(await balance(a)).toBe(before);

    expect(await sendOne(a, whatsapp(name, subscriber, 'PROMO'))).toMatchObject({ code: 4032 });
    expect(await sendOne(a, whatsapp(name, subscriber, 'AUTHORIZE'))).toMatchObject({ code: 201 });
    // Scoped to the channel: an SMS promotion from the same sender name still goes.
    expect(await sendOne(a, sms(subscriber, 'PROMO'))).toMatchObject({ code: 201 });
  });

  it('an SMS keyword gets the reply from the inbound number, free', async () => {
    const a = await newAccount('4252');
    await t.call('PUT', '/api/v1/opt-out', { token: a.system, body: { keywords: ['STOP'], reply: 'Unsubscribed.' } });
    const subscriber = '79161230003';
    const before = await balance(a);
    await t.simulators!.smsc.sendMo({ from: subscriber, to: '4252', text: 'Stop' });
    const reply = await waitFor(async () =>
      (await outbound(a, subscriber)).find((m: { status: string }) => m.status === 'delivered'),
    );
    expect(reply).toMatchObject({
      channelType: 'SMS',
      senderName: '4252',
      content: 'Unsubscribed.',
      trafficType: 'TRANSACT',
      price: { totalPrice: 0 },
    });
    expect(await balance(a)).toBe(before);
    // Written again: listed already, no second reply (it would be stored with the inbound, in its transaction).
    await t.simulators!.smsc.sendMo({ from: subscriber, to: '4252', text: 'STOP' });
    await waitFor(async () => (await inboundTexts(a)).includes('STOP'));
    expect(await outbound(a, subscriber)).toHaveLength(1);
    // Positive control of the price: a message of the account's own to the subscriber costs its tariff.
    const paid = await sendOne(a, sms(subscriber, 'TRANSACT', 'Your order shipped'));
    expect(paid.code).toBe(201);
    expect(await balance(a)).toBe(before - 2.5);
  });

  it('a TELEGRAM keyword to a bot lists the subscriber for that bot, and the bot replies free', async () => {
    const a = await newAccount('4253');
    await t.call('PUT', '/api/v1/opt-out', { token: a.system, body: { keywords: ['ОТПИСКА'], reply: 'Вы отписаны.' } });
    const bot = botName('4253');
    const subscriber = '79161230004';
    // The subscriber, linked to the bot, writes to it: a signed update reaches Herald's webhook.
    const written = await t.simulators!.telegram.bot.writeAsLinked(bot, subscriber, 'ОТПИСКА');
    expect(written.status).toBe(200);
    await waitFor(async () => (await entries(a, subscriber)).length === 1);
    expect(await entries(a, subscriber)).toEqual([
      expect.objectContaining({ channel_type: 'TELEGRAM', sender_name: bot, source: 'keyword' }),
    ]);
    // The reply goes through the bot to the subscriber's chat, free.
    const reply = await waitFor(async () =>
      (await outbound(a, subscriber)).find((m: { status: string }) => m.status === 'delivered'),
    );
    expect(reply).toMatchObject({
      channelType: 'TELEGRAM',
      senderName: bot,
      content: { contentType: 'text', text: 'Вы отписаны.' },
      price: { totalPrice: 0 },
    });
    expect(t.simulators!.telegram.bot.sent.some((m) => m.botUsername === bot && m.text === 'Вы отписаны.')).toBe(true);
    const telegram = (trafficType: string) =>
      message('TELEGRAM', { senderName: bot, destination: subscriber, trafficType, content: 'Hi' });
    expect(await sendOne(a, telegram('PROMO'))).toMatchObject({ code: 4032 });
    expect(await sendOne(a, telegram('TRANSACT'))).toMatchObject({ code: 201 });
  });

  describe('unsubscribe links', () => {
    const codeOf = (content: string): string => /\/s\/u\/([A-Za-z0-9]{10})/.exec(content)![1]!;
    const page = (code: string, method = 'GET', headers: Record<string, string> = {}) =>
      fetch(`${t.url}/s/u/${code}`, { method, headers, redirect: 'manual' });

    it('a GET shows a page and lists nobody; the confirming POST lists the subscriber', async () => {
      const a = await newAccount('4254');
      const subscriber = '79161230005';
      const sent = await sendOne(a, sms(subscriber, 'PROMO', 'Sale! Opt out: {unsubscribe}'));
      expect(sent.code).toBe(201);
      const object = (await t.call('GET', `/api/v1/message/${sent.messageUuid}`, { token: a.traffic })).body;
      expect(object.content).toMatch(/^Sale! Opt out: http:\/\/127\.0\.0\.1:1\/s\/u\/[A-Za-z0-9]{10}$/);
      const code = codeOf(object.content);

      // Link scanners open links: GET and HEAD change nothing, however often.
      for (const method of ['GET', 'HEAD', 'GET']) {
        const shown = await page(code, method, { 'accept-language': 'en' });
        expect(shown.status).toBe(200);
        expect(shown.headers.get('content-type')).toMatch(/^text\/html/);
        expect(shown.headers.get('cache-control')).toBe('no-store');
      }
      const html = await (await page(code)).text();
      expect(html).toContain('<form method="post">');
      expect(html).toContain('Shop');
      expect(html).toContain('0005');
      expect(html).not.toContain(subscriber);
      expect(await entries(a, subscriber)).toEqual([]);
      expect(await sendOne(a, sms(subscriber, 'PROMO'))).toMatchObject({ code: 201 });
      // Not a redirect: the short-link route does not know it.
      expect((await fetch(`${t.url}/s/${code}`, { redirect: 'manual' })).status).toBe(404);

      // The page's form: an empty urlencoded POST.
      const confirmed = await page(code, 'POST', {
        'content-type': 'application/x-www-form-urlencoded',
        'accept-language': 'ru-RU,ru;q=0.9',
      });
      expect(confirmed.status).toBe(200);
      expect(await confirmed.text()).toContain('Вы отписались');
      expect(await entries(a, subscriber)).toEqual([
        expect.objectContaining({ channel_type: 'SMS', sender_name: SHOP, source: 'link' }),
      ]);
      expect(await sendOne(a, sms(subscriber, 'PROMO'))).toMatchObject({ code: 4032 });
      expect(await sendOne(a, sms(subscriber, 'AUTHORIZE', 'Code 4321'))).toMatchObject({ code: 201 });
      // Again: nothing more listed, the page says it is done.
      expect((await page(code, 'POST')).status).toBe(200);
      expect(await entries(a, subscriber)).toHaveLength(1);
      expect(await (await page(code)).text()).toContain('Unsubscribed');
    });

    it('an unknown code is 404 4040 in the API error format, as an unknown short link', async () => {
      for (const code of ['AAAAAAAAAA', 'short', 'x'.repeat(11), 'a-b_c.d~e!']) {
        for (const method of ['GET', 'POST']) {
          const answer = await page(code, method);
          expect(answer.status, `${method} ${code}`).toBe(404);
          expect(await answer.json()).toEqual({ error: { code: 4040, msg: 'Link not found' } });
        }
      }
    });

    it('counts against the length of the text: a text that {unsubscribe} makes too long is refused', async () => {
      const a = await newAccount('4255');
      const telegram = (content: string) =>
        message('TELEGRAM', { senderName: botName('4255'), destination: '79161230006', trafficType: 'PROMO', content });
      const fits = await sendOne(a, telegram(`${'x'.repeat(100)} {unsubscribe}`));
      expect(fits.code).toBe(201);
      const object = (await t.call('GET', `/api/v1/message/${fits.messageUuid}`, { token: a.traffic })).body;
      expect(object.content.text).toMatch(/^x{100} http:\/\/127\.0\.0\.1:1\/s\/u\/[A-Za-z0-9]{10}$/);
      // 4096 characters at most: the placeholder (13) fits, its link (33) does not.
      const tooLong = await sendOne(a, telegram(`${'x'.repeat(4096 - 14)} {unsubscribe}`));
      expect(tooLong).toEqual({ code: 4220, msg: 'Invalid content: too long once its links are shortened' });
    });

    it("a dispatch's {unsubscribe} is no substitution: each message gets its own link", async () => {
      const a = await newAccount('4256');
      const created = await t.call('POST', '/api/v1/dispatch', {
        token: a.traffic,
        body: { dispatchName: 'Sale', channelType: 'SMS', senderName: SHOP, content: 'Hi {name}! {unsubscribe}' },
      });
      expect(created.status).toBe(201);
      const added = await t.call('POST', `/api/v1/dispatch/${created.body.dispatchId}/messages`, {
        token: a.traffic,
        body: [
          { destination: '79161230007', substitutions: { name: 'Ann' } },
          { destination: '79161230008', substitutions: { name: 'Bob' } },
        ],
      });
      expect(added.status).toBe(200);
      const contents: string[] = [];
      for (const item of added.body) {
        expect(item.messageUuid).toBeDefined();
        contents.push((await t.call('GET', `/api/v1/message/${item.messageUuid}`, { token: a.traffic })).body.content);
      }
      expect(contents[0]).toMatch(/^Hi Ann! http:\/\/127\.0\.0\.1:1\/s\/u\/[A-Za-z0-9]{10}$/);
      expect(contents[1]).toMatch(/^Hi Bob! /);
      expect(codeOf(contents[0]!)).not.toBe(codeOf(contents[1]!));
    });
  });
});

describe.each(ENGINES)('{unsubscribe} without a short-link base (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is refused 4220; the same text without it is taken', async () => {
    const a = await t.createAccount({ senderNames: [['SMS', SHOP]], balance: 100 });
    const send = (content: string) =>
      t.call('POST', '/api/v1/message', {
        token: a.traffic,
        body: [message('SMS', { senderName: SHOP, trafficType: 'PROMO', content })],
      });
    expect(await send('Sale! {unsubscribe}')).toMatchObject({
      status: 422,
      body: {
        error: {
          code: 4220,
          msg: 'Invalid content: {unsubscribe} needs the url shortener (HERALD_SHORT_URL_BASE)',
          index: 0,
        },
      },
    });
    expect((await send('Sale! Reply STOP to opt out')).body.items[0].code).toBe(201);
  });
});
