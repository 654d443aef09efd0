import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { ADMIN_TOKEN, startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

describe.each(ENGINES)('operator API (DESIGN 2) (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => t?.close());

  it('requires the admin token', async () => {
    expect((await t.call('GET', '/admin/v1/accounts')).body).toEqual({
      error: { code: 4010, msg: 'Not Authenticated' },
    });
    const wrong = await t.call('GET', '/admin/v1/accounts', { auth: `Bearer ${ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe(4012);
    const account = await t.createAccount();
    const clientToken = await t.call('GET', '/admin/v1/accounts', { auth: `Bearer ${account.system}` });
    expect(clientToken.status).toBe(401);
  });

  it('creates, reads, lists and changes accounts', async () => {
    const created = await t.admin('POST', '/admin/v1/accounts', { name: 'Acme', creditLimit: 50 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Acme',
      status: 'active',
      currency: 'RUB',
      inbound: false,
      creditLimit: 50,
      balance: { RUB: 0 },
      channels: { SMS: true, FLASHCALL: true, VOICECODE: true, VIBER: true, WHATSAPP: false, VK: true },
      createdAt: '2026-03-10T09:00:00Z',
    });
    expect(created.body.callbackSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof created.body.tokens.traffic).toBe('string');
    expect(typeof created.body.tokens.system).toBe('string');
    const id = created.body.id;

    expect((await t.admin('GET', `/admin/v1/accounts/${id}`)).body).toMatchObject({ id, name: 'Acme' });
    const list = await t.admin('GET', '/admin/v1/accounts?per_page=1000');
    expect(list.body.items.map((a: { id: number }) => a.id)).toContain(id);
    expect(list.body.total).toBe(list.body.items.length);

    const patched = await t.admin('PATCH', `/admin/v1/accounts/${id}`, {
      name: 'Acme Ltd',
      channels: { WHATSAPP: true },
      inbound: true,
      creditLimit: 0,
    });
    expect(patched.body).toMatchObject({
      name: 'Acme Ltd',
      inbound: true,
      creditLimit: 0,
      channels: { WHATSAPP: true, SMS: true },
    });
    const again = await t.admin('PATCH', `/admin/v1/accounts/${id}`, { channels: { VK: false } });
    expect(again.body.channels).toMatchObject({ WHATSAPP: true, VK: false });
  });

  it.each([
    ['POST', '/admin/v1/accounts', {}, 422, 4220, 'Missing name'],
    ['POST', '/admin/v1/accounts', { name: '' }, 422, 4220, null],
    ['POST', '/admin/v1/accounts', { name: 'x', currency: 'rub' }, 422, 4220, null],
    ['POST', '/admin/v1/accounts', { name: 'x', extra: 1 }, 422, 4220, 'Invalid extra'],
    ['GET', '/admin/v1/accounts/999999', undefined, 404, 4040, 'Account 999999 not found'],
    ['GET', '/admin/v1/accounts/abc', undefined, 422, 4220, null],
    ['PATCH', '/admin/v1/accounts/999999', { name: 'x' }, 404, 4040, 'Account 999999 not found'],
    ['PATCH', '/admin/v1/accounts/1', { status: 'deleted' }, 422, 4220, null],
    ['PATCH', '/admin/v1/accounts/1', { channels: { MMS: true } }, 422, 4220, 'Invalid channels.MMS'],
  ] as const)('%s %s -> %s', async (method, path, body, status, code, msg) => {
    const reply = await t.admin(method, path, body);
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    if (msg) expect(reply.body.error.msg).toBe(msg);
  });

  it('creates an account with its default traffic center (DESIGN 12)', async () => {
    const created = await t.admin('POST', '/admin/v1/accounts', { name: 'Centered' });
    // Nothing has listed the centers yet: the default exists from the account's creation.
    const rows = await t.testDb.db.query<{ id: number; name: string }>(
      'SELECT id, name FROM traffic_centers WHERE account_id = $1 AND is_default',
      [created.body.id],
    );
    expect(rows).toEqual([{ id: expect.any(Number), name: 'Default' }]);
    const id = rows[0]!.id;
    const tokens = `/admin/v1/accounts/${created.body.id}/tokens`;
    const bound = await t.admin('POST', tokens, { type: 'traffic', trafficCenterId: id });
    expect(bound.status).toBe(201);
    const centers = await t.call('GET', '/api/v1/traffic-centers', { token: created.body.tokens.system });
    expect(centers.body.items).toEqual([expect.objectContaining({ id, name: 'Default', isDefault: true })]);
  });

  it('issues, lists and revokes tokens', async () => {
    const account = await t.createAccount();
    const issued = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'system' });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ type: 'system', trafficCenterId: null, revokedAt: null });
    const listed = await t.admin('GET', `/admin/v1/accounts/${account.id}/tokens`);
    expect(listed.body.items).toHaveLength(3);
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.token);
    expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/tokens/${issued.body.id}`)).status).toBe(204);
    expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/tokens/${issued.body.id}`)).status).toBe(404);
    const after = await t.admin('GET', `/admin/v1/accounts/${account.id}/tokens`);
    expect(after.body.items.find((x: { id: string }) => x.id === issued.body.id).revokedAt).toBe(
      '2026-03-10T09:00:00Z',
    );
    const bound = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, {
      type: 'system',
      trafficCenterId: 1,
    });
    expect(bound.status).toBe(422);
    const verify = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' });
    expect(verify.status).toBe(201);
    expect(verify.body).toMatchObject({ id: expect.stringMatching(/^t3_/), type: 'verify', revokedAt: null });
    const unknown = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'admin' });
    expect(unknown.status).toBe(422);
  });

  it('adjusts balances through the ledger; the balance is the sum of entries', async () => {
    const account = await t.createAccount();
    const path = `/admin/v1/accounts/${account.id}/balance`;
    expect((await t.admin('POST', path, { currency: 'RUB', amount: 100.5, comment: 'top-up' })).body).toEqual({
      RUB: 100.5,
    });
    expect((await t.admin('POST', path, { currency: 'RUB', amount: -0.25 })).body).toEqual({ RUB: 100.25 });
    expect((await t.admin('POST', path, { currency: 'USD', amount: 3 })).body).toEqual({ RUB: 100.25, USD: 3 });
    expect((await t.admin('POST', path, { currency: 'RUB', amount: 0 })).status).toBe(422);
    expect((await t.admin('POST', path, { currency: 'RUBLES', amount: 1 })).status).toBe(422);

    const ledger = await t.admin('GET', `/admin/v1/accounts/${account.id}/ledger`);
    expect(ledger.body.total).toBe(3);
    expect(ledger.body.items.map((e: { amount: number }) => e.amount)).toEqual([3, -0.25, 100.5]);
    expect(ledger.body.items[2]).toMatchObject({ kind: 'adjustment', comment: 'top-up', currency: 'RUB' });
    const [sum] = await t.testDb.db.query<{ total: string }>(
      "SELECT sum(amount) AS total FROM balance_ledger WHERE account_id = $1 AND currency = 'RUB'",
      [account.id],
    );
    expect(Number(sum!.total)).toBe(100.25);
    expect((await t.call('GET', '/api/v1/balance', { token: account.traffic })).body).toEqual({ RUB: 100.25, USD: 3 });
  });

  it('lists the active accounts whose funds (balance and credit limit) are below an amount, lowest first', async () => {
    const low = await t.createAccount({ balance: 40 });
    const lower = await t.createAccount({ balance: 5 });
    const rich = await t.createAccount({ balance: 500 });
    const credited = await t.createAccount();
    await t.admin('PATCH', `/admin/v1/accounts/${credited.id}`, { creditLimit: 1000 });
    const blocked = await t.createAccount({ balance: 1 });
    await t.admin('PATCH', `/admin/v1/accounts/${blocked.id}`, { status: 'blocked' });
    const mine = new Set([low.id, lower.id, rich.id, credited.id, blocked.id]);
    const list = await t.admin('GET', '/admin/v1/accounts?fundsBelow=100&per_page=1000');
    expect(list.status).toBe(200);
    expect(list.body.items.filter((a: { id: number }) => mine.has(a.id)).map((a: { id: number }) => a.id)).toEqual([
      lower.id,
      low.id,
    ]);
    const funds = list.body.items.map(
      (a: { balance: Record<string, number>; currency: string; creditLimit: number }) =>
        (a.balance[a.currency] ?? 0) + a.creditLimit,
    );
    expect(funds).toEqual([...funds].sort((x, y) => x - y));
    expect(funds.every((f: number) => f < 100)).toBe(true);
    expect(list.body.total).toBe(list.body.items.length);
    const refused = await t.admin('GET', '/admin/v1/accounts?fundsBelow=lots');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe(4220);
  });

  it('keeps the ledger exact under concurrent adjustments', async () => {
    const account = await t.createAccount();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        t.admin('POST', `/admin/v1/accounts/${account.id}/balance`, { currency: 'RUB', amount: 0.1 }),
      ),
    );
    expect((await t.call('GET', '/api/v1/balance', { token: account.traffic })).body).toEqual({ RUB: 2 });
  });

  it('creates sender names already approved, with a start date, and they can send', async () => {
    const account = await t.createAccount();
    const made = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'SMS',
      name: 'Shop',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      channelType: 'SMS',
      name: 'Shop',
      status: 'Approved',
      startDate: '2026-03-10T09:00:00Z',
    });
    const send = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { senderName: 'Shop' })],
    });
    expect(send.status).toBe(200);

    const dup = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'SMS',
      name: 'Shop',
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toEqual({ code: 4091, msg: 'Sender name already exists: (SMS, Shop)' });

    for (const name of ['ab', 'TwelveChars1', 'Шоп', 'a@b']) {
      const bad = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name });
      expect(bad.status, name).toBe(422);
    }
    const wa = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'WHATSAPP',
      name: 'Shop Brand Ltd.',
    });
    expect(wa.status).toBe(201);
  });

  it('moderates: a future start date, approval, rejection', async () => {
    const account = await t.createAccount();
    const future = await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'SMS',
      name: 'Soon',
      startDate: '2026-03-10T10:00:00Z',
    });
    const send = () =>
      t.call('POST', '/api/v1/message', { token: account.traffic, body: [message('SMS', { senderName: 'Soon' })] });
    expect((await send()).body.error.msg).toBe('No active sender name: (SMS, Soon)');

    const rejected = await t.admin('POST', `/admin/v1/sender-names/${future.body.id}/reject`, { comment: 'trademark' });
    expect(rejected.body).toMatchObject({ status: 'Rejected', managerComment: 'trademark', startDate: null });
    expect((await send()).status).toBe(422);

    const approved = await t.admin('POST', `/admin/v1/sender-names/${future.body.id}/approve`, {});
    expect(approved.body).toMatchObject({
      status: 'Approved',
      startDate: '2026-03-10T09:00:00Z',
      managerComment: null,
    });
    expect((await send()).status).toBe(200);

    const queue = await t.admin('GET', `/admin/v1/sender-names?accountId=${account.id}&status=Approved`);
    expect(queue.body.items.map((s: { name: string }) => s.name)).toEqual(['Soon']);
    expect((await t.admin('POST', '/admin/v1/sender-names/999999/approve', {})).status).toBe(404);
  });

  it('is disabled without HERALD_ADMIN_TOKEN', async () => {
    const off = await startTestHerald(engine, { env: { HERALD_ADMIN_TOKEN: '' } });
    try {
      const reply = await call(off.url, 'GET', '/admin/v1/accounts', { auth: `Bearer ${ADMIN_TOKEN}` });
      expect(reply.status).toBe(503);
      expect(reply.body.error).toEqual({ code: 5032, msg: 'Operator API is disabled: HERALD_ADMIN_TOKEN is not set' });
    } finally {
      await off.close();
    }
  });
});
