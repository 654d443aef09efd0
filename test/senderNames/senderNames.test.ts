import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

describe.each(ENGINES)('sender names for clients (DESIGN 6) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const post = (body: unknown, token = account.system) => t.call('POST', '/api/v1/sender-names', { token, body });
  const send = (senderName: string) =>
    t.call('POST', '/api/v1/message', { token: account.traffic, body: [message('SMS', { senderName })] });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('creates a Pending name that cannot send until the operator approves it from a start date', async () => {
    const created = await post({ channelType: 'SMS', name: 'MyShop', comment: 'our brand' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      channelType: 'SMS',
      name: 'MyShop',
      status: 'Pending',
      startDate: null,
      comment: 'our brand',
    });
    expect((await send('MyShop')).body.error.msg).toBe('No active sender name: (SMS, MyShop)');

    await t.admin('POST', `/admin/v1/sender-names/${created.body.id}/approve`, { startDate: '2026-03-10T10:00:00Z' });
    expect((await send('MyShop')).body.error.msg).toBe('No active sender name: (SMS, MyShop)');
    t.clock.set('2026-03-10T10:00:00Z');
    try {
      expect((await send('MyShop')).status).toBe(200);
    } finally {
      t.clock.set('2026-03-10T09:00:00Z');
    }
    const got = await t.call('GET', `/api/v1/sender-names/${created.body.id}`, { token: account.system });
    expect(got.body).toMatchObject({ status: 'Approved', startDate: '2026-03-10T10:00:00Z' });
  });

  it('shows a rejection with the operator comment', async () => {
    const created = await post({ channelType: 'WHATSAPP', name: 'Brand X' });
    await t.admin('POST', `/admin/v1/sender-names/${created.body.id}/reject`, { comment: 'Not your trademark' });
    const got = await t.call('GET', `/api/v1/sender-names/${created.body.id}`, { token: account.system });
    expect(got.body).toMatchObject({ status: 'Rejected', managerComment: 'Not your trademark' });
    const queue = await t.admin('GET', '/admin/v1/sender-names?status=Rejected');
    expect(queue.body.items.map((s: { id: number }) => s.id)).toContain(created.body.id);
  });

  it.each([
    [{ channelType: 'SMS', name: 'ab' }, 422],
    [{ channelType: 'SMS', name: 'TwelveChars1' }, 422],
    [{ channelType: 'SMS', name: 'Шоп' }, 422],
    [{ channelType: 'SMS', name: 'Good-Name.1' }, 201],
    [{ channelType: 'SMS', name: 'Sale! 24' }, 201],
    [{ channelType: 'VK', name: 'club' }, 422],
    [{ channelType: 'VOICECODE', name: 'voicecode' }, 422],
    [{ channelType: 'WHATSAPP', name: 'x'.repeat(64) }, 201],
    // DESIGN 12: a message's senderName has at most 64 characters; a longer name could never send.
    [{ channelType: 'WHATSAPP', name: 'x'.repeat(65) }, 422],
    [{ channelType: 'SMS' }, 422],
  ])('%j -> %i', async (body, status) => {
    expect((await post(body)).status).toBe(status);
  });

  it('refuses a duplicate, lists, filters and deletes', async () => {
    await post({ channelType: 'SMS', name: 'Dup' });
    const dup = await post({ channelType: 'SMS', name: 'Dup' });
    expect(dup.status).toBe(409);
    const list = await t.call('GET', '/api/v1/sender-names?status=Pending&channelType=SMS', { token: account.system });
    expect(
      list.body.items.every(
        (s: { status: string; channelType: string }) => s.status === 'Pending' && s.channelType === 'SMS',
      ),
    ).toBe(true);
    const id = list.body.items.find((s: { name: string }) => s.name === 'Dup').id;
    expect((await t.call('DELETE', `/api/v1/sender-names/${id}`, { token: account.system })).status).toBe(204);
    expect((await t.call('GET', `/api/v1/sender-names/${id}`, { token: account.system })).status).toBe(404);
    expect((await post({ channelType: 'SMS', name: 'Dup' })).status).toBe(201);
  });

  it("hides other accounts' names and refuses TOKEN_1", async () => {
    const other = await t.createAccount();
    const mine = await post({ channelType: 'SMS', name: 'Mine' });
    expect((await t.call('GET', `/api/v1/sender-names/${mine.body.id}`, { token: other.system })).status).toBe(404);
    expect((await t.call('DELETE', `/api/v1/sender-names/${mine.body.id}`, { token: other.system })).status).toBe(404);
    const wrong = await post({ channelType: 'SMS', name: 'Nope' }, account.traffic);
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe(4030);
  });
});
