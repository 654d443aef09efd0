import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderNameBotById, senderNameBots, senderNameBotToken } from '../../src/senderNames/index.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

// A token of the form @BotFather gives: the bot's id, a colon, 35 characters.
const TOKEN = '7012345678:AAF-bot-secret_0123456789abcdefghij';
const MASKED = '7012345678:…';

describe.each(ENGINES)('TELEGRAM sender names and their bot tokens (DESIGN 18) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const ask = (name: string, token = account.system) =>
    t.call('POST', '/api/v1/sender-names', { token, body: { channelType: 'TELEGRAM', name } });
  const create = (name: string, accountId = account.id) =>
    t.admin('POST', `/admin/v1/accounts/${accountId}/sender-names`, { channelType: 'TELEGRAM', name });
  const patch = (id: number, body: unknown) => t.admin('PATCH', `/admin/v1/sender-names/${id}`, body);
  let names = 0;
  /** A new bot username of its own for each case. */
  const fresh = (prefix: string): string => `${prefix}_${++names}_bot`;
  const send = (senderName: string) =>
    t.call('POST', '/api/v1/message', { token: account.traffic, body: [message('TELEGRAM', { senderName })] });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it.each([
    ['shop_bot', 201],
    ['ShopBot', 201],
    ['SHOP2BOT', 201],
    ['a_bot', 201],
    [`${'b'.repeat(29)}bot`, 201],
    ['xbot', 422],
    [`${'b'.repeat(30)}bot`, 422],
    ['@news_bot', 422],
    ['news_robot_', 422],
    ['news bot', 422],
    ['news-bot', 422],
    ['новости_bot', 422],
  ])('a client asks for %s -> %i', async (name, status) => {
    const reply = await ask(name);
    expect(reply.status).toBe(status);
    if (status === 201) expect(reply.body).toMatchObject({ channelType: 'TELEGRAM', name, status: 'Pending' });
    else
      expect(reply.body.error).toEqual({
        code: 4220,
        msg:
          `Invalid name: ${JSON.stringify(name)} (TELEGRAM names are bot usernames without @: 5 to 32 letters, ` +
          'digits and _, ending in bot)',
      });
  });

  it('checks the username when the operator creates the name too', async () => {
    expect((await create('@ops_bot')).status).toBe(422);
    expect((await create('ops_bot')).status).toBe(201);
  });

  it('refuses a second sender name for the same bot in another case, not for another account', async () => {
    expect((await ask('Case_Bot')).status).toBe(201);
    const again = await ask('case_bot');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe(4091);
    expect((await create('CASE_BOT')).status).toBe(409);
    const other = await t.createAccount();
    expect((await create('case_bot', other.id)).status).toBe(201);
  });

  it('attaches a token, shows it masked in every answer, and only then lets the name send', async () => {
    const created = await create('masked_bot');
    expect(created.body.botToken).toBeNull();
    const id = created.body.id as number;
    expect((await send('masked_bot')).body.error.msg).toBe('No active sender name: (TELEGRAM, masked_bot)');

    const patched = await patch(id, { botToken: TOKEN });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, channelType: 'TELEGRAM', name: 'masked_bot', botToken: MASKED });
    expect((await send('masked_bot')).status).toBe(200);

    const answers = [
      patched,
      await t.admin('GET', `/admin/v1/sender-names?accountId=${account.id}&channelType=TELEGRAM`),
      await t.admin('POST', `/admin/v1/sender-names/${id}/approve`, {}),
      await t.call('GET', `/api/v1/sender-names/${id}`, { token: account.system }),
      await t.call('GET', '/api/v1/sender-names?channelType=TELEGRAM', { token: account.system }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      expect(text).toContain(MASKED);
      expect(text).not.toContain(TOKEN.split(':')[1]);
    }
    const rejected = await t.admin('POST', `/admin/v1/sender-names/${id}/reject`, { comment: 'gone' });
    expect(rejected.body.botToken).toBe(MASKED);
    expect((await send('masked_bot')).status).toBe(422);
  });

  it('replaces a token with a new one', async () => {
    const id = (await create('renewed_bot')).body.id as number;
    await patch(id, { botToken: TOKEN });
    const renewed = await patch(id, { botToken: '99:AAF-another-secret_0123456789abcdefghij' });
    expect(renewed.body.botToken).toBe('99:…');
    expect((await senderNameBotById(t.testDb.db, id))?.token).toBe('99:AAF-another-secret_0123456789abcdefghij');
  });

  it.each([
    ['no colon', 'AAF-bot-secret_0123456789abcdefghij'],
    ['no bot id', ':AAF-bot-secret_0123456789abcdefghij'],
    ['a bot id with a letter', '70a2345678:AAF-bot-secret_0123456789abcdefghij'],
    ['a secret of 29 characters', `7012345678:${'a'.repeat(29)}`],
    ['a secret of 51 characters', `7012345678:${'a'.repeat(51)}`],
    ['a secret with a dot', '7012345678:AAF.bot-secret_0123456789abcdefghij'],
    ['a space at the end', `${TOKEN} `],
    ['201 characters', `7012345678:${'a'.repeat(190)}`],
  ])('refuses a token with %s, without echoing it', async (_case, botToken) => {
    const id = (await create(fresh('bad'))).body.id as number;
    const reply = await patch(id, { botToken });
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe(4220);
    expect(reply.body.error.msg).toMatch(/^Invalid botToken .*; its value is not shown$/);
    expect(reply.body.error.msg).not.toContain(botToken.slice(11, 30));
    expect(await senderNameBotById(t.testDb.db, id)).toBeUndefined();
  });

  it.each([
    ['30 characters', `1:${'a'.repeat(30)}`],
    ['50 characters', `12345678901234567890:${'Z_-9'.repeat(12)}ab`],
  ])('takes a token whose secret has %s', async (_case, botToken) => {
    const id = (await create(fresh('ok'))).body.id as number;
    expect((await patch(id, { botToken })).status).toBe(200);
  });

  it('refuses a token for another channel, a missing or unknown name, and a body without a token', async () => {
    const sms = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'SMS',
      name: 'SmsName',
    });
    const other = await patch(sms.body.id, { botToken: TOKEN });
    expect(other.status).toBe(422);
    expect(other.body.error).toEqual({
      code: 4220,
      msg: `Bot tokens are for TELEGRAM sender names; sender name ${sms.body.id} is SMS`,
    });
    expect(sms.body.botToken).toBeNull();

    const missing = await patch(99_999_999, { botToken: TOKEN });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({ code: 4040, msg: 'Sender name 99999999 not found' });

    const deleted = await ask('deleted_bot');
    await t.call('DELETE', `/api/v1/sender-names/${deleted.body.id}`, { token: account.system });
    expect((await patch(deleted.body.id, { botToken: TOKEN })).status).toBe(404);

    const id = (await create('empty_body_bot')).body.id as number;
    expect((await patch(id, {})).body.error).toEqual({ code: 4220, msg: 'Missing botToken' });
    expect((await patch(id, { botToken: TOKEN, name: 'x' })).body.error).toEqual({ code: 4220, msg: 'Invalid name' });
    expect((await patch(id, { botToken: 5 })).status).toBe(422);
  });

  it('refuses the token route without the admin token', async () => {
    const id = (await create('guarded_bot')).body.id as number;
    const reply = await t.call('PATCH', `/admin/v1/sender-names/${id}`, {
      token: account.system,
      body: { botToken: TOKEN },
    });
    expect(reply.status).toBe(401);
    expect(await senderNameBotById(t.testDb.db, id)).toBeUndefined();
  });

  it("gives the Telegram connector an active bot's token, every bot, and one bot by id", async () => {
    const own = await t.createAccount();
    const active = (await create('Connector_Bot', own.id)).body.id as number;
    const later = (
      await t.admin('POST', `/admin/v1/accounts/${own.id}/sender-names`, {
        channelType: 'TELEGRAM',
        name: 'later_connector_bot',
        startDate: '2026-03-11T00:00:00Z',
      })
    ).body.id as number;
    const tokenless = (await create('tokenless_connector_bot', own.id)).body.id as number;
    await patch(active, { botToken: TOKEN });
    await patch(later, { botToken: '5:AAF-later-secret_0123456789abcdefghij' });
    const db = t.testDb.db;
    const now = t.clock.now();

    expect(await senderNameBotToken(db, own.id, 'connector_bot', now)).toEqual({ id: active, token: TOKEN });
    expect(await senderNameBotToken(db, own.id, 'CONNECTOR_BOT')).toEqual({ id: active, token: TOKEN });
    expect(await senderNameBotToken(db, account.id, 'connector_bot', now)).toBeUndefined();
    expect(await senderNameBotToken(db, own.id, 'tokenless_connector_bot', now)).toBeUndefined();
    // Approved from tomorrow: not active now; without `now` its start date is not compared.
    expect(await senderNameBotToken(db, own.id, 'later_connector_bot', now)).toBeUndefined();
    expect(await senderNameBotToken(db, own.id, 'later_connector_bot')).toMatchObject({ id: later });

    const bots = (await senderNameBots(db)).filter((b) => b.accountId === own.id);
    expect(bots).toEqual([
      { id: active, accountId: own.id, name: 'Connector_Bot', token: TOKEN },
      { id: later, accountId: own.id, name: 'later_connector_bot', token: '5:AAF-later-secret_0123456789abcdefghij' },
    ]);
    expect(await senderNameBotById(db, active)).toEqual(bots[0]);
    expect(await senderNameBotById(db, tokenless)).toBeUndefined();

    // Rejected: no longer active, still a bot the connector knows (its webhook still answers).
    await t.admin('POST', `/admin/v1/sender-names/${active}/reject`, { comment: 'stop' });
    expect(await senderNameBotToken(db, own.id, 'connector_bot', now)).toBeUndefined();
    expect(await senderNameBotById(db, active)).toEqual(bots[0]);
  });
});
