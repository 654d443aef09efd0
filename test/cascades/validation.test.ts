import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { BOT, SENDER } from '../messages/messageFixtures.js';

const VK = { channelType: 'VK', senderName: 'club1', content: 'Code 1234', condition: 'not_read' };
const VIBER = { channelType: 'VIBER', senderName: 'Shop', content: { contentType: 'text', text: 'Code 1234' } };
const SMS = { channelType: 'SMS', senderName: SENDER, content: 'Code 1234' };
const FLASHCALL = { channelType: 'FLASHCALL', senderName: 'any caller', content: '1234' };
const TELEGRAM_TEXT = { channelType: 'TELEGRAM', senderName: BOT, content: { contentType: 'text', text: 'Code 1234' } };
const TELEGRAM_CODE = { channelType: 'TELEGRAM', senderName: BOT, content: { contentType: 'code', code: '1234' } };
const valid = (changes: Record<string, unknown> = {}): Record<string, unknown> => ({
  destination: '79161234567',
  cascade: [VK, { ...VIBER, condition: 'not_delivered', ttl: 600 }, SMS],
  ...changes,
});

type Case = readonly [name: string, body: unknown, error: Record<string, unknown>];

/** Each refusal of POST /api/v1/message/cascade, with `index` (the cascade object) and `step` (0-based). */
const REFUSALS: readonly Case[] = [
  ['a body that is no array', valid(), { code: 4220, msg: 'Request body must be a JSON array of message objects' }],
  ['an empty batch', [], { code: 4220, msg: 'Min count of messages is 1' }],
  ['a cascade that is no object', [valid(), 'x'], { code: 4220, msg: 'Message must be a JSON object', index: 1 }],
  ['no steps', [valid({ cascade: undefined })], { code: 4220, msg: 'Missing cascade', index: 0 }],
  [
    'seven steps',
    [valid({ cascade: [...Array(6).fill({ ...SMS, condition: 'not_delivered' }), SMS] })],
    { code: 4220, msg: 'Invalid cascade: an array of 1 to 6 steps', index: 0 },
  ],
  ['no destination', [valid({ destination: undefined })], { code: 4220, msg: 'Missing destination', index: 0 }],
  ['an unknown field', [valid({ priority: 1 })], { code: 4220, msg: 'Invalid priority', index: 0 }],
  ['a bad hour of the window', [valid({ hours: [25] })], { code: 4222, index: 0 }],
  ['a bad traffic type', [valid({ trafficType: 'BULK' })], { code: 4220, msg: 'Invalid trafficType: "BULK"' }],
  [
    'a step without its condition',
    [valid({ cascade: [{ ...VK, condition: undefined }, SMS] })],
    { code: 4220, msg: 'Missing condition', index: 0, step: 0 },
  ],
  [
    'a condition on the last step',
    [valid(), valid({ cascade: [VK, { ...SMS, condition: 'not_delivered' }] })],
    { code: 4220, msg: 'Invalid condition', index: 1, step: 1 },
  ],
  [
    'an unknown condition',
    [valid({ cascade: [{ ...VK, condition: 'not_clicked' }, SMS] })],
    { code: 4220, msg: 'Invalid condition: not_clicked', index: 0, step: 0 },
  ],
  [
    'not_read after a channel without read receipts',
    [valid({ cascade: [{ ...SMS, condition: 'not_read' }, VIBER] })],
    { code: 4220, msg: 'Invalid condition: not_read', index: 0, step: 0 },
  ],
  // DESIGN 18: a TELEGRAM text is never read or not read (the Bot API reports nothing after sendMessage).
  [
    'not_read after a TELEGRAM text',
    [valid({ cascade: [{ ...TELEGRAM_TEXT, condition: 'not_read' }, SMS] })],
    { code: 4220, msg: 'Invalid condition: not_read', index: 0, step: 0 },
  ],
  [
    'a TELEGRAM step of a bot that is not a sender name',
    [valid({ cascade: [VK, { ...TELEGRAM_TEXT, senderName: 'other_bot', condition: 'not_delivered' }, SMS] })],
    { code: 4220, msg: 'No active sender name: (TELEGRAM, other_bot)', index: 0, step: 1 },
  ],
  [
    'a TELEGRAM code step with a ttl over the Gateway bound',
    [valid({ cascade: [{ ...TELEGRAM_CODE, ttl: 3601, condition: 'not_read' }, SMS] })],
    { code: 4220, msg: 'Invalid TTL 3601', index: 0, step: 0 },
  ],
  [
    'a TELEGRAM code of 3 digits',
    [valid({ cascade: [{ ...TELEGRAM_CODE, content: { contentType: 'code', code: '123' } }] })],
    { code: 4220, msg: 'Invalid content', index: 0, step: 0 },
  ],
  [
    'a TELEGRAM step with externalMessageId',
    [valid({ cascade: [{ ...TELEGRAM_TEXT, externalMessageId: 'x' }] })],
    { code: 4220, msg: 'Invalid externalMessageId', index: 0, step: 0 },
  ],
  [
    'a step field a step does not take',
    [valid({ cascade: [{ ...VK, destination: '79161234567' }, SMS] })],
    { code: 4220, msg: 'Invalid destination', index: 0, step: 0 },
  ],
  [
    'a ttl out of the channel bounds',
    [valid({ cascade: [VK, { ...SMS, ttl: 5 }] })],
    { code: 4220, msg: 'Invalid TTL 5', index: 0, step: 1 },
  ],
  [
    'a sender name not registered for SMS',
    [valid({ cascade: [VK, { ...SMS, senderName: 'Nope' }] })],
    { code: 4220, msg: 'No active sender name: (SMS, Nope)', index: 0, step: 1 },
  ],
  ['empty content', [valid({ cascade: [{ ...VK, content: '' }, SMS] })], { code: 4220, index: 0, step: 0 }],
  // DESIGN 13: an error of a field of the whole cascade has no step.
  ['an invalid destination', [valid({ destination: '123' })], { code: 4220, msg: 'Invalid msisdn', index: 0 }],
  [
    'an invalid callbackUrl',
    [valid({ callbackUrl: 'ftp://example.com/cb' })],
    { code: 4220, msg: 'Invalid callbackUrl: only http and https are allowed: ftp://example.com/cb', index: 0 },
  ],
  ['invalid tags', [valid({ tags: ['a b'] })], { code: 4220, msg: 'Invalid tags: ["a b"]', index: 0 }],
  [
    'invalid callbackEvents',
    [valid({ callbackEvents: ['opened'] })],
    { code: 4220, msg: 'Invalid callbackEvents: ["opened"]', index: 0 },
  ],
  ['a shortUrl not boolean', [valid({ shortUrl: 'yes' })], { code: 4220, msg: 'Invalid shortUrl: "yes"', index: 0 }],
  [
    'a shortUrl not boolean where no step takes it',
    [valid({ shortUrl: 'yes', cascade: [FLASHCALL] })],
    { code: 4220, msg: 'Invalid shortUrl', index: 0 },
  ],
  // As for a FLASHCALL or VOICECODE message, which refuses the field.
  [
    'a shortUrl no step takes',
    [valid({ shortUrl: true, cascade: [{ ...FLASHCALL, condition: 'not_delivered' }, FLASHCALL] })],
    { code: 4220, msg: 'Invalid shortUrl', index: 0 },
  ],
  // The clock stands at 09:00 UTC: 12:00 in Moscow, the zone of 79161234567 and of useLocalTime false.
  [
    'a completion time past in Moscow',
    [valid({ useLocalTime: false, localCompletionTime: '2026-03-10 10:00:00' })],
    { code: 4220, msg: 'Local completion time is less than minimal 2026-03-10 12:00:00', index: 0 },
  ],
  [
    "a completion time past in the subscriber's zone",
    [valid({ localCompletionTime: '2026-03-10 10:00:00' })],
    { code: 4220, msg: 'Local completion time is less than minimal 2026-03-10 12:00:00', index: 0 },
  ],
  [
    "a send time under the bound in the subscriber's zone",
    [valid({ localSendTime: '2026-03-09 23:59:59' })],
    { code: 4220, msg: 'Local send time is less than minimal 2026-03-10 00:00:00', index: 0 },
  ],
];

describe.each(ENGINES)('cascade requests (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    // WHATSAPP has a sender name but stays off (as by default).
    account = await t.createAccount({
      channels: { VK: true, VIBER: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
        ['TELEGRAM', BOT],
      ],
      openWhatsapp: false,
    });
  });
  afterAll(async () => t?.close());

  const post = (body: unknown, options: { token?: string; auth?: string; headers?: Record<string, string> } = {}) =>
    t.call('POST', '/api/v1/message/cascade', { token: account.traffic, body, ...options });
  const count = async (): Promise<number> =>
    Number(
      (
        await t.testDb.db.query<{ n: number }>('SELECT count(*) AS n FROM cascades WHERE account_id = $1', [account.id])
      )[0]!.n,
    );

  it.each(REFUSALS)('refuses %s with 422 and stores nothing', async (_name, body, error) => {
    const before = await count();
    const reply = await post(body);
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject(error);
    if (!('step' in error)) expect(reply.body.error).not.toHaveProperty('step');
    expect(await count()).toBe(before);
  });

  it('takes a valid cascade, its texts in either form, and answers with the root', async () => {
    const reply = await post([
      valid({
        cascade: [
          { ...VK, content: { text: 'Code 1234' } },
          { ...VIBER, content: 'Code 1234', condition: 'not_delivered' },
          { ...SMS, content: { contentType: 'text', text: 'x' } },
        ],
      }),
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(false);
    const root = reply.body.items[0].messageUuid;
    const message = (await t.call('GET', `/api/v1/message/${root}`, { token: account.traffic })).body;
    expect(message).toMatchObject({ messageUuid: root, channelType: 'VK', content: 'Code 1234', cascadeStep: 1 });
    expect(message.cascadeMessageUuid).toBe(root);
    const [stored] = await t.testDb.db.query<{ steps: { message: { content: unknown } }[] }>(
      'SELECT steps FROM cascades WHERE id = $1',
      [root],
    );
    expect(stored!.steps.map((s) => s.message.content)).toEqual([
      'Code 1234',
      { contentType: 'text', text: 'Code 1234' },
      'x',
    ]);
    const cascade = (await t.call('GET', `/api/v1/message/cascade/${root}`, { token: account.traffic })).body;
    expect(cascade).toMatchObject({ cascadeMessageUuid: root, state: 'running', currentStep: 1, stepCount: 3 });
    expect(cascade.steps[2]).toMatchObject({ step: 3, channelType: 'SMS', condition: null, message: null });
  });

  it("takes the real public client's cascade: VK, a TELEGRAM text with ttl 600, SMS (DESIGN 18)", async () => {
    const reply = await post([
      {
        destination: '79161234567',
        tags: ['otp'],
        callbackUrl: 'https://example.com/cb',
        cascade: [
          { channelType: 'VK', senderName: 'club1', content: 'Code 1234', condition: 'not_delivered', ttl: 300 },
          {
            channelType: 'TELEGRAM',
            senderName: 'Herald_Test_Bot',
            content: { contentType: 'text', text: 'Code 1234' },
            condition: 'not_delivered',
            ttl: 600,
          },
          { channelType: 'SMS', senderName: SENDER, content: 'Code 1234' },
        ],
      },
    ]);
    expect(reply.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
    const root = reply.body.items[0].messageUuid;
    const [stored] = await t.testDb.db.query<{ steps: { message: Record<string, unknown> }[] }>(
      'SELECT steps FROM cascades WHERE id = $1',
      [root],
    );
    expect(stored!.steps[1]!.message).toMatchObject({
      channelType: 'TELEGRAM',
      senderName: 'Herald_Test_Bot',
      content: { contentType: 'text', text: 'Code 1234' },
      ttl: 600,
    });
  });

  it('takes not_read after a TELEGRAM code, its text in any form, and a code without ttl lives 3600 s', async () => {
    const reply = await post([
      valid({ cascade: [{ ...TELEGRAM_CODE, condition: 'not_read' }, SMS] }),
      valid({ cascade: [{ ...TELEGRAM_TEXT, content: 'Code 1234', condition: 'not_delivered' }, SMS] }),
      valid({ cascade: [VK, { ...TELEGRAM_TEXT, content: { text: 'Code 1234' } }] }),
    ]);
    expect(reply.body).toMatchObject({ errors: false });
    const [codeRoot, stringRoot, textRoot] = reply.body.items.map((i: { messageUuid: string }) => i.messageUuid);
    const first = (await t.call('GET', `/api/v1/message/${codeRoot}`, { token: account.traffic })).body;
    expect(first).toMatchObject({
      channelType: 'TELEGRAM',
      content: { contentType: 'code', code: '1234' },
      ttl: 3600,
      cascadeStep: 1,
    });
    const steps = async (root: string) =>
      (
        await t.testDb.db.query<{ steps: { message: { content: unknown } }[] }>(
          'SELECT steps FROM cascades WHERE id = $1',
          [root],
        )
      )[0]!.steps.map((step) => step.message.content);
    expect((await steps(stringRoot))[0]).toEqual({ contentType: 'text', text: 'Code 1234' });
    expect((await steps(textRoot))[1]).toEqual({ contentType: 'text', text: 'Code 1234' });
  });

  it('applies the window fields to every step, whatever its channel takes', async () => {
    const reply = await post([
      valid({
        hours: [10, 11],
        cascade: [{ channelType: 'FLASHCALL', senderName: 'any', content: '1234', condition: 'not_delivered' }, SMS],
      }),
    ]);
    expect(reply.body.errors).toBe(false);
    const message = (
      await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic })
    ).body;
    expect(message).toMatchObject({ channelType: 'FLASHCALL', hours: [10, 11] });
  });

  it('takes Bearer as well as Basic, and refuses a system token with 403 4030', async () => {
    expect((await post([valid()], { auth: `Bearer ${account.traffic}` })).status).toBe(200);
    const system = await post([valid()], { token: account.system });
    expect(system.status).toBe(403);
    expect(system.body.error.code).toBe(4030);
    expect((await post([valid()], { token: undefined })).status).toBe(401);
  });

  it('answers a repeated Idempotency-Key with the first answer, creating nothing more', async () => {
    const headers = { 'idempotency-key': 'cascade-key-1' };
    const first = await post([valid()], { headers });
    const before = await count();
    const again = await post([valid()], { headers });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count()).toBe(before);
  });

  it('refuses a cascade with a step on a channel the account may not use, as an item', async () => {
    const reply = await post([
      valid(),
      valid({
        cascade: [VK, { channelType: 'WHATSAPP', senderName: SENDER, content: { contentType: 'text', text: 'x' } }],
      }),
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(true);
    expect(reply.body.items[0].code).toBe(201);
    expect(reply.body.items[1]).toMatchObject({ code: 4031 });
  });

  it('lists the steps of a cascade, and first steps apart from later ones', async () => {
    const [root] = (await post([valid()])).body.items.map((i: { messageUuid: string }) => i.messageUuid);
    const list = (query: string) =>
      t.call('GET', `/api/v1/message?${query}`, { token: account.traffic }).then((r) => r.body);
    const steps = await list(`cascade_message_uuid=${root}`);
    expect(steps.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([root]);
    expect(steps.total).toBe(1);
    const roots = await list('root=true&per_page=1000');
    expect(roots.items.some((m: { messageUuid: string }) => m.messageUuid === root)).toBe(true);
    expect((await list('root=false')).total).toBe(0);
    expect((await list('cascade_message_uuid=nope')).items).toBeUndefined();
  });
});
