import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/templates/templatePattern.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

describe('template patterns', () => {
  it.each([
    ['Your code is %d', 'Your code is 1234', true],
    ['Your code is %d', 'Your code is 12a4', false],
    ['Your code is %d', 'Your code is 1234.', false],
    ['Hello, %w!', 'Hello, Anna!', true],
    ['Hello, %w!', 'Hello, Anna Maria!', false],
    ['Order %d: %s', 'Order 77: shipped today (3 boxes)', true],
    ['Order %d: %s', 'Order 77: ', false],
    ['Price (net): $%d.%d*', 'Price (net): $10.50*', true],
    ['Price (net): $%d.%d*', 'Price (net): $10x50*', false],
    ['Код %d', 'Код 5555', true],
    ['Order-%d (a-b)', 'Order-12 (a-b)', true],
    ['catalogue-%d.png', 'catalogue-7.png', true],
  ])('%s ~ %s -> %s', (pattern, text, matches) => {
    expect(compilePattern(pattern).test(text)).toBe(matches);
  });
});

describe.each(ENGINES)('templates (DESIGN 6) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const create = (body: Record<string, unknown>) =>
    t.call('POST', '/api/v1/templates', {
      token: account.system,
      body: { channelType: 'SMS', templateType: 'SERVICE', senderName: SENDER, ...body },
    });
  const put = (id: number, body: Record<string, unknown>) =>
    t.call('PUT', `/api/v1/templates/${id}`, {
      token: account.system,
      body: { channelType: 'SMS', templateType: 'SERVICE', senderName: SENDER, ...body },
    });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
      ],
      openWhatsapp: false,
    });
  });
  afterAll(async () => t?.close());

  it('goes through review, approval and closing, and marks matching messages with its id', async () => {
    const created = await create({ pattern: 'Your code is %d', dateTo: '2026-03-11T00:00:00Z' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'INTERNAL_REVIEW',
      pattern: 'Your code is %d',
      dateFrom: '2026-03-10T09:00:00Z',
      dateTo: '2026-03-11T00:00:00Z',
      managerComment: null,
    });
    const id = created.body.id;
    const queue = await t.admin('GET', '/admin/v1/templates?status=INTERNAL_REVIEW');
    expect(queue.body.items.map((x: { id: number }) => x.id)).toContain(id);

    const sendCode = async () => {
      const reply = await t.call('POST', '/api/v1/message', {
        token: account.traffic,
        body: [message('SMS', { content: 'Your code is 4711' })],
      });
      return (await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic }))
        .body.templateId;
    };
    expect(await sendCode()).toBeNull();
    expect((await t.admin('POST', `/admin/v1/templates/${id}/approve`, {})).body.status).toBe('APPROVED');
    expect(await sendCode()).toBe(id);

    // Approved: only dateTo may change.
    expect(
      (await put(id, { pattern: 'Your code: %d', dateFrom: '2026-03-10T09:00:00Z', dateTo: '2026-03-11T00:00:00Z' }))
        .status,
    ).toBe(409);
    const extended = await put(id, {
      pattern: 'Your code is %d',
      dateFrom: '2026-03-10T09:00:00Z',
      dateTo: '2026-03-12T00:00:00Z',
    });
    expect(extended.body).toMatchObject({ status: 'APPROVED', dateTo: '2026-03-12T00:00:00Z' });

    t.clock.set('2026-03-12T00:00:01Z');
    try {
      expect((await t.call('GET', `/api/v1/templates/${id}`, { token: account.system })).body.status).toBe('CLOSED');
      expect(
        (
          await put(id, {
            pattern: 'Your code is %d',
            dateFrom: '2026-03-10T09:00:00Z',
            dateTo: '2026-03-20T00:00:00Z',
          })
        ).status,
      ).toBe(409);
    } finally {
      t.clock.set('2026-03-10T09:00:00Z');
    }
  });

  it('sends a rejected template back to review when it is edited', async () => {
    const created = await create({ pattern: 'Sale %s' });
    const rejected = await t.admin('POST', `/admin/v1/templates/${created.body.id}/reject`, { comment: 'Too vague' });
    expect(rejected.body).toMatchObject({ status: 'REJECTED', managerComment: 'Too vague' });
    const edited = await put(created.body.id, { pattern: 'Sale: %d% off until %w' });
    expect(edited.body).toMatchObject({
      status: 'INTERNAL_REVIEW',
      managerComment: null,
      pattern: 'Sale: %d% off until %w',
    });
    const inReview = await put(created.body.id, { pattern: 'Sale: %d% off', templateType: 'MARKETING' });
    expect(inReview.body).toMatchObject({ status: 'INTERNAL_REVIEW', templateType: 'MARKETING' });
  });

  it('changes the fields a PUT gives and keeps the others (DESIGN 12)', async () => {
    const patch = (id: number, body: Record<string, unknown>) =>
      t.call('PUT', `/api/v1/templates/${id}`, { token: account.system, body });
    const created = await create({ pattern: 'Sale %s', templateType: 'MARKETING', dateTo: '2026-04-01T00:00:00Z' });
    const id = created.body.id;
    const kept = { channelType: 'SMS', templateType: 'MARKETING', senderName: SENDER, dateFrom: created.body.dateFrom };
    const renamed = { ...kept, pattern: 'Sale: %d% off' };
    expect((await patch(id, { pattern: 'Sale: %d% off' })).body).toMatchObject({
      ...renamed,
      dateTo: '2026-04-01T00:00:00Z',
      status: 'INTERNAL_REVIEW',
    });
    const extended = await patch(id, { dateTo: '2026-05-01T00:00:00Z' });
    expect(extended.body).toMatchObject({ ...renamed, dateTo: '2026-05-01T00:00:00Z' });
    expect((await patch(id, { dateTo: null })).body).toMatchObject({ ...renamed, dateTo: null });
    expect((await patch(id, {})).body).toMatchObject({ ...renamed, dateTo: null });
    expect((await patch(id, { priority: 1 })).body).toEqual({ error: { code: 4220, msg: 'Invalid priority' } });
    expect((await patch(id, { dateTo: '2026-03-01T00:00:00Z' })).body.error.msg).toContain('Invalid dateTo');

    // Approved: a dateTo alone goes through, even after the sender name was deleted; anything else is 409.
    await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name: 'Temp' });
    const temp = await create({ pattern: 'Temp %d', senderName: 'Temp' });
    await t.admin('POST', `/admin/v1/templates/${temp.body.id}/approve`, {});
    const names = await t.call('GET', '/api/v1/sender-names?channelType=SMS&per_page=1000', { token: account.system });
    const tempName = names.body.items.find((n: { name: string }) => n.name === 'Temp');
    expect((await t.call('DELETE', `/api/v1/sender-names/${tempName.id}`, { token: account.system })).status).toBe(204);
    expect((await patch(temp.body.id, { dateTo: '2026-06-01T00:00:00Z' })).body).toMatchObject({
      status: 'APPROVED',
      pattern: 'Temp %d',
      dateTo: '2026-06-01T00:00:00Z',
    });
    expect((await patch(temp.body.id, { pattern: 'Temp: %d' })).status).toBe(409);
    expect((await patch(temp.body.id, { senderName: 'Temp' })).status).toBe(422);
  });

  it.each([
    [{ pattern: 'x', senderName: 'Nobody' }, 'Invalid senderName'],
    [{ pattern: 'x', senderName: 'x'.repeat(65) }, 'Invalid senderName'],
    [{ pattern: 'x', templateType: 'PROMO' }, 'Invalid templateType'],
    [{ pattern: '' }, 'Invalid pattern'],
    [{ pattern: 'x', dateFrom: '2026-03-12T00:00:00Z', dateTo: '2026-03-11T00:00:00Z' }, 'Invalid dateTo'],
    [{ pattern: 'x', content: { contentType: 'text', text: 'hi' } }, 'Invalid content'],
    [
      { pattern: 'x', channelType: 'WHATSAPP', content: { contentType: 'text', text: 'hi', buttons: [] } },
      'Invalid content',
    ],
    [{ pattern: 'x'.repeat(2001) }, 'Invalid pattern'],
    [
      {
        pattern: 'x',
        channelType: 'WHATSAPP',
        content: { contentType: 'image', imageUrl: `https://a.example/${'x'.repeat(2000)}`, imageName: 'x' },
      },
      'Invalid content: every string must be at most 2000 characters',
    ],
  ])('refuses %j', async (body, msg) => {
    const reply = await create(body);
    expect(reply.status).toBe(422);
    expect(reply.body.error.msg).toContain(msg);
  });

  it('refuses placeholders that touch in a new pattern or content, and takes a kept one', async () => {
    expect((await create({ pattern: 'Dear %s%s!' })).body).toEqual({
      error: { code: 4220, msg: 'Invalid pattern: "Dear %s%s!" (placeholders must be separated by text: %s%s)' },
    });
    expect((await create({ pattern: 'Code %d%w' })).body.error.msg).toBe(
      'Invalid pattern: "Code %d%w" (placeholders must be separated by text: %d%w)',
    );
    const content = {
      contentType: 'text',
      text: 'Sale %d',
      buttons: [{ text: 'Shop', url: 'https://shop.example/%w%d' }],
    };
    expect((await create({ channelType: 'WHATSAPP', pattern: 'Sale %d', content })).body).toEqual({
      error: { code: 4220, msg: 'Invalid content: placeholders must be separated by text: %w%d' },
    });
    const fine = await create({ pattern: 'Dear %s %s, 100%% %d' });
    expect(fine.status).toBe(201);
    // A pattern stored before the rule (and matched in linear time all the same) is not checked again when kept.
    await t.testDb.db.query(`UPDATE templates SET pattern = 'Dear %s%s' WHERE id = $1`, [fine.body.id]);
    const kept = await t.call('PUT', `/api/v1/templates/${fine.body.id}`, {
      token: account.system,
      body: { dateTo: '2026-04-01T00:00:00Z' },
    });
    expect(kept.body).toMatchObject({ pattern: 'Dear %s%s', dateTo: '2026-04-01T00:00:00Z' });
  });

  it("takes VOICECODE texts of the account's approved VOICECODE templates besides the spec's (DESIGN 12)", async () => {
    const text = 'Ваш код от Orient: 4821';
    const voicecode = (content: string, token = account.traffic) =>
      t.call('POST', '/api/v1/message', {
        token,
        body: [message('VOICECODE', { content: { contentType: 'text', text: content } })],
      });
    const refused = { error: { code: 4220, msg: 'Invalid content', index: 0 } };
    expect((await voicecode(text)).body).toEqual(refused);

    const named = await create({ channelType: 'VOICECODE', senderName: 'Orient', pattern: 'Ваш код от Orient: %d' });
    expect(named.status).toBe(422);
    expect(named.body.error.msg).toBe('Invalid senderName: "Orient" (VOICECODE templates use voicecode)');
    // `voicecode` needs no registration.
    const arranged = { channelType: 'VOICECODE', senderName: 'voicecode', pattern: 'Ваш код от Orient: %d' };
    const created = await create(arranged);
    expect(created.body).toMatchObject({ ...arranged, status: 'INTERNAL_REVIEW' });
    expect((await voicecode(text)).body).toEqual(refused);

    await t.admin('POST', `/admin/v1/templates/${created.body.id}/approve`, {});
    const accepted = await voicecode(text);
    expect(accepted.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
    const uuid = accepted.body.items[0].messageUuid;
    const stored = await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic });
    expect(stored.body).toMatchObject({ templateId: created.body.id, content: { contentType: 'text', text } });
    expect((await voicecode('Ваш код от Orient: 48a1')).body).toEqual(refused);
    expect((await voicecode('Код авторизации от Orient: 4821.')).body).toMatchObject({ errors: false });
    const other = await t.createAccount();
    expect((await voicecode(text, other.traffic)).body).toEqual(refused);
  });

  it('deletes, hides other accounts templates, and refuses TOKEN_1', async () => {
    const created = await create({ pattern: 'Bye %w' });
    const other = await t.createAccount();
    expect((await t.call('GET', `/api/v1/templates/${created.body.id}`, { token: other.system })).status).toBe(404);
    expect((await t.call('GET', '/api/v1/templates', { token: account.traffic })).status).toBe(403);
    expect((await t.call('DELETE', `/api/v1/templates/${created.body.id}`, { token: account.system })).status).toBe(
      204,
    );
    expect((await t.call('GET', `/api/v1/templates/${created.body.id}`, { token: account.system })).status).toBe(404);
  });
});
