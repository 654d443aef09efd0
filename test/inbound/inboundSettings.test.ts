import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InboundRuleRow, matchRule } from '../../src/inbound/inboundRuleSql.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

describe('the inbound rule a message follows', () => {
  const rule = (id: number, senderNames: string[] | null, channel = 'WHATSAPP'): InboundRuleRow => ({
    id,
    account_id: 1,
    traffic_center_id: id * 10,
    callback_url: null,
    sender_names: senderNames,
    channel_type: channel,
    created_at: new Date(),
    updated_at: new Date(),
  });

  it('prefers a rule naming the sender name over one for all names, and the oldest among equals', () => {
    const rules = [rule(1, null), rule(2, ['Shop', 'Store']), rule(3, ['Shop']), rule(4, [])];
    expect(matchRule(rules, 'WHATSAPP', 'Shop')?.id).toBe(2);
    expect(matchRule(rules, 'WHATSAPP', 'Store')?.id).toBe(2);
    expect(matchRule(rules, 'WHATSAPP', 'Other')?.id).toBe(1);
    expect(matchRule([rule(3, ['Shop'])], 'WHATSAPP', 'Other')).toBeUndefined();
    expect(matchRule([rule(1, null, 'VIBER')], 'WHATSAPP', 'Shop')).toBeUndefined();
  });

  it('matches a TELEGRAM bot in any case, as Telegram compares usernames; other names as written', () => {
    const rules = [rule(1, null, 'TELEGRAM'), rule(2, ['Shop_Bot'], 'TELEGRAM'), rule(3, ['Shop'])];
    expect(matchRule(rules, 'TELEGRAM', 'shop_bot')?.id).toBe(2);
    expect(matchRule(rules, 'TELEGRAM', 'SHOP_BOT')?.id).toBe(2);
    expect(matchRule(rules, 'TELEGRAM', 'other_bot')?.id).toBe(1);
    expect(matchRule(rules, 'WHATSAPP', 'shop')).toBeUndefined();
  });
});

describe.each(ENGINES)('traffic centers and inbound rules (spec 6.5, DESIGN 6) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let stranger: TestAccount;
  const api = (method: string, path: string, body?: unknown, who?: TestAccount) =>
    t.call(method, path, { token: (who ?? account).system, body });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
    stranger = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('gives every account one default center and moves the default on request', async () => {
    const [first] = (await api('GET', '/api/v1/traffic-centers')).body.items;
    expect(first).toMatchObject({ name: 'Default', isDefault: true });
    const created = await api('POST', '/api/v1/traffic-centers', { name: 'Support' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Support', isDefault: false });
    const id = created.body.id;

    expect((await api('PATCH', `/api/v1/traffic-centers/${id}`, { name: 'Customer care' })).body).toMatchObject({
      name: 'Customer care',
      isDefault: false,
    });
    expect((await api('PATCH', `/api/v1/traffic-centers/${id}`, { isDefault: true })).body.isDefault).toBe(true);
    const items = (await api('GET', '/api/v1/traffic-centers')).body.items;
    expect(items.filter((c: { isDefault: boolean }) => c.isDefault).map((c: { id: number }) => c.id)).toEqual([id]);

    // The default cannot go; the old one, no longer default, can.
    const refused = await api('DELETE', `/api/v1/traffic-centers/${id}`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 4091]);
    expect(refused.body.error.msg).toContain('default center cannot be deleted');
    expect((await api('DELETE', `/api/v1/traffic-centers/${first.id}`)).status).toBe(204);
    expect((await api('GET', `/api/v1/traffic-centers/${first.id}`)).status).toBe(404);
  });

  it("keeps each account's centers and rules to itself", async () => {
    const mine = (await api('GET', '/api/v1/traffic-centers')).body.items[0];
    expect((await api('GET', `/api/v1/traffic-centers/${mine.id}`, undefined, stranger)).status).toBe(404);
    expect((await api('PATCH', `/api/v1/traffic-centers/${mine.id}`, { name: 'Mine now' }, stranger)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/traffic-centers/${mine.id}`, undefined, stranger)).status).toBe(404);
    const rule = await api('POST', '/api/v1/inbound-rules', { trafficCenterId: mine.id }, stranger);
    expect([rule.status, rule.body.error.msg]).toEqual([422, `Invalid trafficCenterId: ${mine.id} (no such center)`]);
  });

  it('keeps the default center when making a missing center the default fails', async () => {
    const owner = await t.createAccount();
    const [current] = (await api('GET', '/api/v1/traffic-centers', undefined, owner)).body.items;
    const mine = (await api('GET', '/api/v1/traffic-centers')).body.items[0];
    expect((await api('PATCH', '/api/v1/traffic-centers/999999999', { isDefault: true }, owner)).status).toBe(404);
    expect((await api('PATCH', `/api/v1/traffic-centers/${mine.id}`, { isDefault: true }, owner)).status).toBe(404);
    const items = (await api('GET', '/api/v1/traffic-centers', undefined, owner)).body.items;
    expect(items.map((c: { id: number; isDefault: boolean }) => [c.id, c.isDefault])).toEqual([[current.id, true]]);
  });

  it('creates, lists, replaces and deletes rules, and refuses to delete a center rules use', async () => {
    const center = (await api('POST', '/api/v1/traffic-centers', { name: 'Sales' })).body;
    const created = await api('POST', '/api/v1/inbound-rules', {
      trafficCenterId: center.id,
      callbackUrl: 'https://user:secret@hooks.example/inbound',
      senderNames: ['Shop', 'Shop', 'Store'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      trafficCenterId: center.id,
      callbackUrl: 'https://user:***@hooks.example/inbound',
      senderNames: ['Shop', 'Store'],
      channelType: 'WHATSAPP',
    });
    const id = created.body.id;
    expect((await api('GET', '/api/v1/inbound-rules')).body.items.map((r: { id: number }) => r.id)).toContain(id);
    expect((await api('GET', `/api/v1/inbound-rules/${id}`)).body.senderNames).toEqual(['Shop', 'Store']);

    const inUse = await api('DELETE', `/api/v1/traffic-centers/${center.id}`);
    expect([inUse.status, inUse.body.error.code]).toEqual([409, 4091]);

    const replaced = await api('PUT', `/api/v1/inbound-rules/${id}`, { trafficCenterId: center.id, senderNames: [] });
    expect(replaced.body).toMatchObject({ id, callbackUrl: null, senderNames: null });
    expect((await api('DELETE', `/api/v1/inbound-rules/${id}`)).status).toBe(204);
    expect((await api('GET', `/api/v1/inbound-rules/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/inbound-rules/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/traffic-centers/${center.id}`)).status).toBe(204);
  });

  it('takes a rule for the inbound messages of TELEGRAM bots (DESIGN 18)', async () => {
    const center = (await api('GET', '/api/v1/traffic-centers')).body.items[0];
    const created = await api('POST', '/api/v1/inbound-rules', {
      trafficCenterId: center.id,
      senderNames: ['shop_bot'],
      channelType: 'TELEGRAM',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ senderNames: ['shop_bot'], channelType: 'TELEGRAM' });
    expect((await api('GET', `/api/v1/inbound-rules/${created.body.id}`)).body.channelType).toBe('TELEGRAM');
    expect((await api('DELETE', `/api/v1/inbound-rules/${created.body.id}`)).status).toBe(204);
  });

  it.each([
    ['a private callback URL', { callbackUrl: 'http://10.0.0.1/hook' }, 'Invalid callbackUrl'],
    ['a callback URL that is not http(s)', { callbackUrl: 'ftp://hooks.example/x' }, 'Invalid callbackUrl'],
    ['another channel', { channelType: 'VIBER' }, 'channelType'],
    ['an empty sender name', { senderNames: [''] }, 'senderNames'],
    ['a callback URL over 2048 characters', { callbackUrl: `https://a.example/${'x'.repeat(2048)}` }, 'callbackUrl'],
    ['a sender name over 64 characters', { senderNames: ['x'.repeat(65)] }, 'senderNames'],
    ['an unknown field', { priority: 1 }, 'priority'],
    // JSON bodies are never coerced: a string is not a list, a number is not a name.
    ['a string for the list of sender names', { senderNames: 'Shop' }, 'senderNames'],
    ['a number for a sender name', { senderNames: ['Shop', 5] }, 'senderNames'],
    ['the center id as a string', { trafficCenterId: '1' }, 'trafficCenterId'],
  ])('refuses a rule with %s (422 4220)', async (_, change, words) => {
    const center = (await api('GET', '/api/v1/traffic-centers')).body.items[0];
    const reply = await api('POST', '/api/v1/inbound-rules', { trafficCenterId: center.id, ...change });
    expect([reply.status, reply.body.error.code]).toEqual([422, 4220]);
    expect(reply.body.error.msg).toContain(words);
  });

  it('refuses a center without a name and answers 404 for unknown ids', async () => {
    const nameless = await api('POST', '/api/v1/traffic-centers', { name: '' });
    expect([nameless.status, nameless.body.error.code]).toEqual([422, 4220]);
    expect((await api('GET', '/api/v1/traffic-centers/999999')).body.error.code).toBe(4040);
    expect((await api('GET', '/api/v1/inbound-rules/999999')).body.error.code).toBe(4040);
  });
});
