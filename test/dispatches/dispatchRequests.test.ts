import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { BOT, SENDER } from '../messages/messageFixtures.js';

const SMS = { channelType: 'SMS', senderName: SENDER, content: 'Hello {name}' };

/**
 * What a dispatch takes (DESIGN 15, 12): its items as their schema says, each answered on its own; substitutions that
 * are the entry's own; codes as placeholders; `Idempotency-Key` on every creating POST.
 */
describe.each(ENGINES)('dispatch requests (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      senderNames: [
        ['SMS', SENDER],
        ['TELEGRAM', BOT],
      ],
    });
  });
  afterAll(async () => t?.close());

  const call = (path: string, body?: unknown, key?: string) =>
    t.call('POST', `/api/v1/dispatch${path}`, {
      token: account.traffic,
      ...(body !== undefined ? { body } : {}),
      ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}),
    });
  const create = async (fields: Record<string, unknown> = SMS): Promise<string> => {
    const reply = await call('', { dispatchName: 'Requests', ...fields });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.dispatchId;
  };
  const content = async (uuid: string) =>
    (await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic })).body.content;
  const total = async (id: string) =>
    (await t.call('GET', `/api/v1/dispatch/${id}`, { token: account.traffic })).body.messages.total;

  it('answers each item that is not as its schema says with its 7401, in request order, the others added', async () => {
    const id = await create();
    const reply = await call(`/${id}/messages`, [
      { destination: '79165100001', substitutions: { name: 'x'.repeat(1000) } },
      { destination: '79165100002', substitutions: { name: 'x'.repeat(1001) } },
      { destination: '79165100003', substitutions: { name: 42 } },
      { destination: '79165100004', substitutions: { name: null } },
      { destination: '79165100005', substitutions: { name: 'Ann' }, extra: 1 },
      { substitutions: { name: 'Ann' } },
      'not an object',
    ]);
    expect(reply.status).toBe(200);
    const error = (destination: unknown, msg: string) => ({ destination, errorCode: 7401, msg });
    expect(reply.body.slice(1)).toEqual([
      error('79165100002', 'Invalid substitutions.name: must not have more than 1000 characters'),
      { destination: '79165100003', messageUuid: expect.any(String) },
      error('79165100004', 'Invalid substitutions.name: must be string'),
      error('79165100005', 'Invalid extra'),
      error(null, 'Missing destination'),
      error(null, 'Message must be a JSON object'),
    ]);
    expect(await content(reply.body[0].messageUuid)).toBe(`Hello ${'x'.repeat(1000)}`);
    expect(await content(reply.body[2].messageUuid)).toBe('Hello 42');
  });

  it('refuses a text longer than its channel allows from its length, beside texts that fit', async () => {
    // 39,015 GSM characters are 255 parts of 153; one more is 256.
    const id = await create({ ...SMS, content: `${'{a}'.repeat(39)}{b}` });
    const reply = await call(`/${id}/messages`, [
      { destination: '79165110001', substitutions: { a: 'x'.repeat(1000), b: 'y'.repeat(15) } },
      { destination: '79165110002', substitutions: { a: 'x'.repeat(1000), b: 'y'.repeat(16) } },
      { destination: '79165110003', substitutions: { a: 'x'.repeat(1000) } },
    ]);
    expect(reply.body.slice(1)).toEqual([
      { destination: '79165110002', errorCode: 7401, msg: 'Content after substitution is longer than 255 SMS parts' },
      { destination: '79165110003', errorCode: 7401, msg: 'Missing substitution b' },
    ]);
    const message = await t.call('GET', `/api/v1/message/${reply.body[0].messageUuid}`, { token: account.traffic });
    expect(message.body.totalParts).toBe(255);
  });

  it('fills a placeholder only from the entry’s own substitutions, never from what every object inherits', async () => {
    const id = await create({ ...SMS, content: 'Hello {constructor}, {toString}' });
    const reply = await call(`/${id}/messages`, [
      { destination: '79165120001' },
      { destination: '79165120002', substitutions: { constructor: 'Ann' } },
      { destination: '79165120003', substitutions: { constructor: 'Ann', toString: 'hi' } },
    ]);
    expect(reply.body.slice(0, 2)).toEqual([
      { destination: '79165120001', errorCode: 7401, msg: 'Missing substitution constructor' },
      { destination: '79165120002', errorCode: 7401, msg: 'Missing substitution toString' },
    ]);
    expect(await content(reply.body[2].messageUuid)).toBe('Hello Ann, hi');
  });

  it('takes a FLASHCALL or VOICECODE code as a placeholder, each message validated once substituted', async () => {
    const flashcall = await create({ channelType: 'FLASHCALL', senderName: 'any caller', content: '{code}' });
    const calls = await call(`/${flashcall}/messages`, [
      { destination: '79165130001', substitutions: { code: '0123' } },
      { destination: '79165130002', substitutions: { code: 'abcd' } },
      { destination: '79165130003', substitutions: { code: '12345' } },
    ]);
    expect(calls.body.slice(1).map((i: { errorCode?: number; msg?: string }) => [i.errorCode, i.msg])).toEqual([
      [7401, 'Invalid content'],
      [7401, 'Content after substitution is longer than 4 digits'],
    ]);
    expect(await content(calls.body[0].messageUuid)).toBe('0123');
    const voicecode = await create({
      channelType: 'VOICECODE',
      senderName: 'voicecode',
      content: { contentType: 'text', text: 'Код авторизации от {brand}: {code}.' },
    });
    const voiced = await call(`/${voicecode}/messages`, [
      { destination: '79165130004', substitutions: { brand: 'Shop', code: '5 6 7 8' } },
      { destination: '79165130005', substitutions: { brand: 'Shop', code: 'none' } },
    ]);
    expect(voiced.body[1]).toEqual({ destination: '79165130005', errorCode: 7401, msg: 'Invalid content' });
    expect(await content(voiced.body[0].messageUuid)).toEqual({
      contentType: 'text',
      text: 'Код авторизации от Shop: 5 6 7 8.',
    });
    // A code that no substitution can make one is refused at once; so is one without placeholders, as ever.
    for (const code of ['ab{code}', '12{a}345', '123'])
      expect(
        (await call('', { dispatchName: 'x', channelType: 'FLASHCALL', senderName: 'c', content: code })).status,
      ).toBe(422);
  });

  it('takes TELEGRAM texts and codes with placeholders, and TELEGRAM steps of a cascade (DESIGN 18)', async () => {
    const refused = await call('', {
      dispatchName: 'x',
      channelType: 'TELEGRAM',
      senderName: 'nope_bot',
      content: 'x',
    });
    expect(refused.body.error).toEqual({ code: 4220, msg: 'No active sender name: (TELEGRAM, nope_bot)' });
    const text = await create({ channelType: 'TELEGRAM', senderName: BOT, content: 'Hello {name}' });
    const texts = await call(`/${text}/messages`, [{ destination: '79165140001', substitutions: { name: 'Ann' } }]);
    expect(await content(texts.body[0].messageUuid)).toEqual({ contentType: 'text', text: 'Hello Ann' });

    const codes = await create({
      channelType: 'TELEGRAM',
      senderName: BOT,
      content: { contentType: 'code', code: '{code}' },
    });
    const sent = await call(`/${codes}/messages`, [
      { destination: '79165140002', substitutions: { code: '01234567' } },
      { destination: '79165140003', substitutions: { code: '12a4' } },
      { destination: '79165140004', substitutions: { code: '123456789' } },
    ]);
    expect(sent.body.slice(1).map((i: { errorCode?: number; msg?: string }) => [i.errorCode, i.msg])).toEqual([
      [7401, 'Invalid content'],
      [7401, 'Invalid content'],
    ]);
    const code = await t.call('GET', `/api/v1/message/${sent.body[0].messageUuid}`, { token: account.traffic });
    expect(code.body).toMatchObject({
      channelType: 'TELEGRAM',
      content: { contentType: 'code', code: '01234567' },
      ttl: 3600,
      dispatchId: codes,
    });
    // A code that no substitution can make one is refused at once.
    for (const bad of ['ab{code}', '123456789{code}'])
      expect(
        (
          await call('', {
            dispatchName: 'x',
            channelType: 'TELEGRAM',
            senderName: BOT,
            content: { contentType: 'code', code: bad },
          })
        ).body.error,
      ).toEqual({ code: 4220, msg: 'Invalid content' });

    const cascade = await create({
      cascade: [
        {
          channelType: 'TELEGRAM',
          senderName: BOT,
          content: { contentType: 'code', code: '{code}' },
          condition: 'not_read',
        },
        { ...SMS, content: 'Code {code}' },
      ],
    });
    const steps = await call(`/${cascade}/messages`, [{ destination: '79165140005', substitutions: { code: '4321' } }]);
    expect(await content(steps.body[0].messageUuid)).toEqual({ contentType: 'code', code: '4321' });
    const notRead = await call('', {
      dispatchName: 'x',
      cascade: [{ channelType: 'TELEGRAM', senderName: BOT, content: 'Hi {name}', condition: 'not_read' }, SMS],
    });
    expect(notRead.body.error).toMatchObject({ code: 4220, msg: 'Invalid condition: not_read', step: 0 });
  });

  it('honours Idempotency-Key on create, add and each action: the first answer again, nothing done twice', async () => {
    const key = (name: string) => `${engine}-${name}-${Date.now()}`;
    const body = { dispatchName: 'Once', ...SMS };
    const createKey = key('create');
    const first = await call('', body, createKey);
    const again = await call('', { ...SMS, dispatchName: 'Once' }, createKey);
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([201, first.body, 'true']);
    const other = await call('', { ...body, dispatchName: 'Twice' }, createKey);
    expect([other.status, other.body.error.code]).toEqual([409, 4090]);
    const listed = await t.call('GET', '/api/v1/dispatch?dispatch_name=Once', { token: account.traffic });
    expect(listed.body.total).toBe(1);

    const id = first.body.dispatchId as string;
    const items = [
      { destination: '79165140001', substitutions: { name: 'Ann' } },
      { destination: '79165140002', substitutions: { name: 'Bob' } },
    ];
    const addKey = key('add');
    const added = await call(`/${id}/messages`, items, addKey);
    const addedAgain = await call(`/${id}/messages`, items, addKey);
    expect([addedAgain.status, addedAgain.body, addedAgain.headers.get('idempotent-replayed')]).toEqual([
      200,
      added.body,
      'true',
    ]);
    expect(await total(id)).toBe(2);
    // The same key and items for another dispatch are another request.
    const elsewhere = await call(`/${await create()}/messages`, items, addKey);
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([409, 4090]);

    for (const change of ['start', 'pause', 'resume', 'stop']) {
      const changeKey = key(change);
      const done = await call(`/${id}/${change}`, undefined, changeKey);
      const replayed = await call(`/${id}/${change}`, undefined, changeKey);
      expect([done.status, replayed.status, replayed.body, replayed.headers.get('idempotent-replayed')]).toEqual([
        200,
        200,
        { dispatchId: id },
        'true',
      ]);
      // Without the key, the same change is refused: it was done once.
      expect((await call(`/${id}/${change}`)).status).toBe(409);
      // The key of one change is not another's.
      if (change !== 'stop') expect((await call(`/${id}/stop`, undefined, changeKey)).status).toBe(409);
    }
    expect(await total(id)).toBe(2);
  });
});
