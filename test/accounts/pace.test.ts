import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

/**
 * The operator's maxRate of an account: its messages take send slots held in the database, one 1/maxRate apart,
 * whichever process accepts them; AUTHORIZE and TRANSACT messages go at once and push the backlog back.
 */
describe.each(ENGINES)('an account paced by maxRate (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const patched = await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { maxRate: 10 });
    expect(patched.body.maxRate).toBe(10);
  });
  afterAll(async () => t?.close());

  const planned = async (ids: readonly string[]): Promise<number[]> => {
    const rows = await t.testDb.db.query<{ id: string; planned_send_at: Date }>(
      `SELECT id, planned_send_at FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const at = new Map(rows.map((r) => [r.id, r.planned_send_at.getTime() - t.clock.now().getTime()]));
    return ids.map((id) => at.get(id)!);
  };
  const sms = (n: number, destination = '79161234560') =>
    Array.from({ length: n }, () => message('SMS', { destination }));

  it('spaces its messages 1/maxRate apart, and sends AUTHORIZE ones at once, ahead of the backlog', async () => {
    const first = await t.send(account.traffic, sms(5));
    expect(await planned(first)).toEqual([0, 100, 200, 300, 400]);
    const [code] = await t.send(account.traffic, [message('FLASHCALL')]);
    expect(await planned([code!])).toEqual([0]);
    // The backlog moved back by the code's slot.
    expect(await planned(await t.send(account.traffic, sms(2)))).toEqual([600, 700]);
  });

  it('gives concurrent batches distinct slots', async () => {
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { maxRate: 100 });
    const batches = await Promise.all([1, 2, 3, 4].map(() => t.send(account.traffic, sms(25))));
    const times = (await planned(batches.flat())).sort((a, b) => a - b);
    expect(times).toEqual(Array.from({ length: 100 }, (_, i) => i * 10));
  });

  it('sends at once again when the cap is removed', async () => {
    const cleared = await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { maxRate: null });
    expect(cleared.body.maxRate).toBeNull();
    expect(await planned(await t.send(account.traffic, sms(3)))).toEqual([0, 0, 0]);
  });

  it("spreads a dispatch at the account's rate when its own speed is faster", async () => {
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { maxRate: 2 });
    const created = await t.call('POST', '/api/v1/dispatch', {
      token: account.traffic,
      body: {
        dispatchName: 'paced',
        channelType: 'SMS',
        senderName: SENDER,
        content: 'Hi',
        speed: { amount: 600, unit: 'minute' },
      },
    });
    const id = created.body.dispatchId;
    const added = await t.call('POST', `/api/v1/dispatch/${id}/messages`, {
      token: account.traffic,
      body: ['79161234570', '79161234580', '79161234590'].map((destination) => ({ destination })),
    });
    await t.call('POST', `/api/v1/dispatch/${id}/start`, { token: account.traffic });
    expect(await planned(added.body.map((i: { messageUuid: string }) => i.messageUuid))).toEqual([0, 500, 1000]);
  });
});
