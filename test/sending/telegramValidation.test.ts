import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald, testBotToken } from '../helpers/testHerald.js';
import { BOT, message, type Refusal, refused } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

// TELEGRAM messages as DESIGN 18 validates them: each refusal beside the value next to it that is accepted.
const OK = 'accepted' as const;
type Case = readonly [name: string, body: Record<string, unknown>, expected: typeof OK | Refusal];

const long = (n: number, char = 'a'): string => char.repeat(n);
const tg = (changes: Record<string, unknown> = {}) => message('TELEGRAM', changes);
const code = (value: unknown, more: Record<string, unknown> = {}) =>
  tg({ content: { contentType: 'code', code: value }, ...more });
const noName = (name: string) => refused(`No active sender name: (TELEGRAM, ${name})`);
const INVALID = refused('Invalid content');

const CASES: Readonly<Record<string, readonly Case[]>> = {
  senderName: [
    ['an approved bot with a token', tg(), OK],
    ['its username in another case', tg({ senderName: 'Herald_Test_BOT' }), OK],
    ['a username with @', tg({ senderName: `@${BOT}` }), noName(`@${BOT}`)],
    ['a username not ending in bot', tg({ senderName: 'herald_test' }), noName('herald_test')],
    ['a username of 4 characters', tg({ senderName: 'xbot' }), noName('xbot')],
    ['a username of 5 characters', tg({ senderName: 'a_bot' }), OK],
    ['a username of 32 characters', tg({ senderName: `${long(29, 'b')}bot` }), OK],
    ['a username of 33 characters', tg({ senderName: `${long(30, 'b')}bot` }), noName(`${long(30, 'b')}bot`)],
    ['a username with a dash', tg({ senderName: 'herald-test_bot' }), noName('herald-test_bot')],
    ['a bot of another account', tg({ senderName: 'foreign_bot' }), noName('foreign_bot')],
    ['an approved bot without a token', tg({ senderName: 'tokenless_bot' }), noName('tokenless_bot')],
    ['a pending bot with a token', tg({ senderName: 'pending_bot' }), noName('pending_bot')],
    ['a bot approved from tomorrow', tg({ senderName: 'later_bot' }), noName('later_bot')],
    ['a rejected bot with a token', tg({ senderName: 'rejected_bot' }), noName('rejected_bot')],
    ['an SMS name of the account', tg({ senderName: 'Herald' }), noName('Herald')],
  ],
  'content: texts': [
    ['a string', tg({ content: 'Hello' }), OK],
    ['{text}', tg({ content: { text: 'Hello' } }), OK],
    ['{contentType: text, text}', tg({ content: { contentType: 'text', text: 'Hello' } }), OK],
    ['4096 characters', tg({ content: long(4096) }), OK],
    ['4096 emoji (code points)', tg({ content: { text: long(4096, '😀') } }), OK],
    ['4097 characters', tg({ content: long(4097) }), INVALID],
    ['4097 characters in an object', tg({ content: { contentType: 'text', text: long(4097) } }), INVALID],
    ['an empty string', tg({ content: '' }), refused('Blank content')],
    ['a blank text', tg({ content: { contentType: 'text', text: '  ' } }), refused('Blank content')],
    ['a byte order mark', tg({ content: '\ufeffHi' }), INVALID],
    ['a text that is a number', tg({ content: { text: 5 } }), INVALID],
    ['an object without text', tg({ content: { contentType: 'text' } }), INVALID],
    ['another field beside the text', tg({ content: { text: 'Hi', caption: 'x' } }), INVALID],
    ['another contentType', tg({ content: { contentType: 'image', imageUrl: 'https://a.example/i.png' } }), INVALID],
    ['a number', tg({ content: 1234 }), INVALID],
    ['an array', tg({ content: ['Hi'] }), INVALID],
  ],
  'content: codes': [
    ['4 digits', code('0123'), OK],
    ['8 digits', code('12345678'), OK],
    ['3 digits', code('123'), INVALID],
    ['9 digits', code('123456789'), INVALID],
    ['a letter', code('12a4'), INVALID],
    ['a space', code('12 34'), INVALID],
    ['non-ASCII digits', code('١٢٣٤'), INVALID],
    ['a number', code(1234), INVALID],
    ['no code', tg({ content: { contentType: 'code' } }), INVALID],
    ['a text beside the code', tg({ content: { contentType: 'code', code: '1234', text: 'Hi' } }), INVALID],
  ],
  'fields and ttl': [
    ['externalMessageId', tg({ externalMessageId: 'x' }), refused('Invalid externalMessageId')],
    ['externalMessageId on a code', code('1234', { externalMessageId: 'x' }), refused('Invalid externalMessageId')],
    [
      'every other field of spec 2.1',
      tg({
        tags: ['t1'],
        useLocalTime: false,
        localSendTime: '2026-03-10 12:00:00',
        localCompletionTime: '2026-03-10 20:00:00',
        ttl: 3600,
        hours: [9, 10],
        days: [1, 2],
        shortUrl: false,
        callbackUrl: 'https://example.com/cb',
        callbackEvents: ['sent', 'read'],
        trafficType: 'TRANSACT',
      }),
      OK,
    ],
    ['a text with ttl 60', tg({ ttl: 60 }), OK],
    ['a text with ttl 59', tg({ ttl: 59 }), refused('Invalid TTL 59')],
    ['a text with ttl 86400', tg({ ttl: 86_400 }), OK],
    ['a text with ttl 86401', tg({ ttl: 86_401 }), refused('Invalid TTL 86401')],
    ['a code with ttl 30', code('1234', { ttl: 30 }), OK],
    ['a code with ttl 29', code('1234', { ttl: 29 }), refused('Invalid TTL 29')],
    ['a code with ttl 3600', code('1234', { ttl: 3600 }), OK],
    ['a code with ttl 3601', code('1234', { ttl: 3601 }), refused('Invalid TTL 3601')],
    ['a code with a ttl not a whole number', code('1234', { ttl: 60.5 }), refused('Invalid TTL 60.5')],
  ],
};

describe.each(ENGINES)('TELEGRAM message validation (DESIGN 18) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      senderNames: [
        ['SMS', 'Herald'],
        ['TELEGRAM', BOT],
        ['TELEGRAM', 'a_bot'],
        ['TELEGRAM', `${long(29, 'b')}bot`],
        ['TELEGRAM', 'tokenless_bot'],
      ],
      botTokens: { tokenless_bot: null },
    });
    const other = await t.createAccount({ senderNames: [['TELEGRAM', 'foreign_bot']] });
    expect(other.id).not.toBe(account.id);
    // Approved from tomorrow, with a token: not active yet.
    const later = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'TELEGRAM',
      name: 'later_bot',
      startDate: '2026-03-11T00:00:00Z',
    });
    // Asked for by the client (Pending), or refused by the operator: a token does not make either active.
    const pending = await t.call('POST', '/api/v1/sender-names', {
      token: account.system,
      body: { channelType: 'TELEGRAM', name: 'pending_bot' },
    });
    const rejected = await t.call('POST', '/api/v1/sender-names', {
      token: account.system,
      body: { channelType: 'TELEGRAM', name: 'rejected_bot' },
    });
    await t.admin('POST', `/admin/v1/sender-names/${rejected.body.id}/reject`, { comment: 'not your bot' });
    for (const created of [later, pending, rejected]) {
      expect(created.status).toBe(201);
      const patched = await t.admin('PATCH', `/admin/v1/sender-names/${created.body.id}`, {
        botToken: testBotToken(created.body.id),
      });
      expect(patched.status).toBe(200);
    }
  });
  afterAll(async () => t?.close());

  for (const [rule, cases] of Object.entries(CASES)) {
    describe(rule, () => {
      it.each(cases)('%s', async (_name, body, expected) => {
        const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body: [body] });
        if (expected === OK) {
          expect(reply.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
          expect(reply.status).toBe(200);
        } else {
          const [status, code, msg] = expected;
          expect(reply.body).toEqual({ error: { code, msg, index: 0 } });
          expect(reply.status).toBe(status);
        }
      });
    });
  }

  const stored = async (uuid: string) => {
    const [row] = await t.testDb.db.query<{
      content: unknown;
      ttl: number | null;
      total_parts: number;
      expires_at: Date;
      created_at: Date;
    }>(`SELECT content, ttl, total_parts, expires_at, created_at FROM ${messageRows()} WHERE id = $1`, [uuid]);
    return row!;
  };

  it.each([
    ['a string', 'Hello'],
    ['{text}', { text: 'Hello' }],
    ['{contentType: text, text}', { contentType: 'text', text: 'Hello' }],
  ])('stores a text given as %s as {contentType: text, text}, in one part', async (_form, content) => {
    const [uuid] = await t.send(account.traffic, [tg({ content })]);
    const row = await stored(uuid!);
    expect(row.content).toEqual({ contentType: 'text', text: 'Hello' });
    expect(row.total_parts).toBe(1);
    const got = await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic });
    expect(got.body).toMatchObject({
      channelType: 'TELEGRAM',
      content: { contentType: 'text', text: 'Hello' },
      totalParts: 1,
      ttl: null,
    });
  });

  it('gives a code without ttl a lifetime of 3600 s, and a text the default 25 hours', async () => {
    const [codeId, codeTtl, textId] = await t.send(account.traffic, [
      code('123456'),
      code('123456', { ttl: 120 }),
      tg({ content: 'Hello' }),
    ]);
    const lifetime = (row: { expires_at: Date; created_at: Date }) =>
      (row.expires_at.getTime() - row.created_at.getTime()) / 1000;
    const asCode = await stored(codeId!);
    expect(asCode).toMatchObject({ content: { contentType: 'code', code: '123456' }, ttl: 3600, total_parts: 1 });
    expect(lifetime(asCode)).toBe(3600);
    const given = await stored(codeTtl!);
    expect(given.ttl).toBe(120);
    expect(lifetime(given)).toBe(120);
    const text = await stored(textId!);
    expect(text.ttl).toBeNull();
    expect(lifetime(text)).toBe(25 * 3600);
    const got = await t.call('GET', `/api/v1/message/${codeId}`, { token: account.traffic });
    expect(got.body).toMatchObject({ content: { contentType: 'code', code: '123456' }, ttl: 3600 });
  });

  it('keeps the senderName as the client wrote it, whatever case its sender name is in', async () => {
    const [uuid] = await t.send(account.traffic, [tg({ senderName: 'HERALD_TEST_BOT' })]);
    const got = await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic });
    expect(got.body.senderName).toBe('HERALD_TEST_BOT');
  });

  it('refuses TELEGRAM for an account whose operator turned it off, and lists it by channel_type', async () => {
    // A bot of its own: a bot's token attaches to one account only.
    const off = await t.createAccount({
      senderNames: [['TELEGRAM', 'off_account_bot']],
      channels: { TELEGRAM: false },
    });
    const refusedReply = await t.call('POST', '/api/v1/message', {
      token: off.traffic,
      body: [tg({ senderName: 'off_account_bot' })],
    });
    expect(refusedReply.body).toMatchObject({ errors: true, items: [{ code: 4031 }] });
    const list = await t.call('GET', '/api/v1/message?channel_type=TELEGRAM', { token: account.traffic });
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThan(0);
    expect(list.body.items.every((m: { channelType: string }) => m.channelType === 'TELEGRAM')).toBe(true);
  });
});
