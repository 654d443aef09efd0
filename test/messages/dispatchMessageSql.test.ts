import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import * as messagesOfDispatch from '../../src/messages/dispatchMessageSql.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf } from '../helpers/plans.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { insertAccount, insertMessage } from '../factories/rows.js';
import { type MessageState, messageRows, messagesSet } from '../helpers/messageRows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const DISPATCH = '01900000-0000-7000-8000-0000000000d1';

/**
 * A dispatch's messages in each state a pause or a stop meets: waiting in the queue, held, in a worker's hand (its
 * lease running), left by a dead worker (its lease over), sent.
 */
async function dispatchMessages(tx: Queryable) {
  const accountId = (await insertAccount(tx)).id;
  const message = async (state: MessageState = {}): Promise<string> => {
    const id = await insertMessage(tx, { accountId, createdAt: T0 });
    await messagesSet(tx, { ids: [id] }, { dispatch_id: DISPATCH, ...state });
    return id;
  };
  return {
    accountId,
    waiting: await message(),
    held: await message({ due_at: 'infinity' }),
    inHand: await message({ due_at: at(60), lease_expires_at: at(60) }),
    leftByTheDead: await message({ due_at: at(-1), lease_expires_at: at(-1) }),
    sent: await message({ status: 'sent' }),
  };
}

const statusOf = async (tx: Queryable, id: string) =>
  (
    await tx.query<{ status: string; held: boolean }>(
      `SELECT status, due_at = 'infinity' AS held FROM ${messageRows()} WHERE id = $1`,
      [id],
    )
  )[0]!;

/** The statements a pause and a stop run on a dispatch's messages, each test in a transaction rolled back. */
describe.each(ENGINES)('dispatch messages SQL: pause, stop, what is left (%s)', (engine) => {
  const own = ownRowsTests(engine);

  own('a pause holds what waits (a lease over included) and leaves what a worker holds', async (tx) => {
    const m = await dispatchMessages(tx);
    expect(await messagesOfDispatch.unsettled(tx, m.accountId, DISPATCH, T0, false)).toEqual({
      left: 3,
      inHand: 1,
      leasedUntil: at(60),
    });
    expect(await messagesOfDispatch.hold(tx, m.accountId, DISPATCH, T0)).toBe(2);
    for (const id of [m.waiting, m.leftByTheDead, m.held])
      expect(await statusOf(tx, id)).toEqual({ status: 'sending', held: true });
    expect(await statusOf(tx, m.inHand)).toEqual({ status: 'sending', held: false });
    // Settled once the message in hand is recorded (sent here): nothing left that a worker could take.
    expect(await messagesOfDispatch.unsettled(tx, m.accountId, DISPATCH, T0, false)).toMatchObject({
      left: 1,
      inHand: 1,
    });
    await messagesSet(tx, { ids: [m.inHand] }, { status: 'sent', lease_expires_at: null });
    expect(await messagesOfDispatch.unsettled(tx, m.accountId, DISPATCH, T0, false)).toEqual({
      left: 0,
      inHand: 0,
      leasedUntil: null,
    });
  });

  own('a stop makes unsent what waits and what is held, and counts held ones as left until then', async (tx) => {
    const m = await dispatchMessages(tx);
    expect(await messagesOfDispatch.unsettled(tx, m.accountId, DISPATCH, T0, true)).toMatchObject({
      left: 4,
      inHand: 1,
    });
    const stop = (limit: number, after: string | null) =>
      messagesOfDispatch.stop(tx, m.accountId, DISPATCH, T0, DELIVERY_ERRORS.stopped, limit, after);
    // A batch at a time, each going on after the last id of the one before.
    const stopped = [m.waiting, m.held, m.leftByTheDead].sort();
    expect(await stop(2, null)).toEqual({ taken: 2, last: stopped[1] });
    expect(await stop(2, stopped[1]!)).toEqual({ taken: 1, last: stopped[2] });
    expect(await stop(2, stopped[2]!)).toEqual({ taken: 0, last: stopped[2] });
    for (const id of [m.waiting, m.held, m.leftByTheDead]) expect((await statusOf(tx, id)).status).toBe('unsent');
    expect((await statusOf(tx, m.inHand)).status).toBe('sending');
    expect((await statusOf(tx, m.sent)).status).toBe('sent');
    expect(await messagesOfDispatch.unsettled(tx, m.accountId, DISPATCH, T0, true)).toMatchObject({
      left: 1,
      inHand: 1,
    });
  });

  own('reads the held messages in the order they were added, a batch at a time, and writes their plans', async (tx) => {
    const m = await dispatchMessages(tx);
    const more = await insertMessage(tx, { accountId: m.accountId, createdAt: T0 });
    await messagesSet(tx, { ids: [more] }, { dispatch_id: DISPATCH, due_at: 'infinity', hours: [14] });
    const held = [m.held, more].sort();
    const first = await messagesOfDispatch.held(tx, m.accountId, DISPATCH, null, 1);
    expect(first.map((h) => h.id)).toEqual([held[0]]);
    const second = await messagesOfDispatch.held(tx, m.accountId, DISPATCH, held[0]!, 1);
    expect(second.map((h) => h.id)).toEqual([held[1]]);
    expect((await messagesOfDispatch.held(tx, m.accountId, DISPATCH, held[1]!, 1)).length).toBe(0);
    expect([...first, ...second].find((h) => h.id === more)).toMatchObject({
      hours: [14],
      deadlineAt: expect.any(Date),
    });
    await messagesOfDispatch.plan(tx, m.accountId, [
      { id: m.held, dueAt: at(3600), plannedSendAt: at(3600), deadlineAt: at(7200), expiresAt: at(9000) },
      { id: more, dueAt: T0, plannedSendAt: null, deadlineAt: T0, expiresAt: T0 },
      // Not held: left alone.
      { id: m.waiting, dueAt: at(3600), plannedSendAt: at(3600), deadlineAt: at(7200), expiresAt: at(9000) },
    ]);
    const rows = await tx.query<{ id: string; due_at: Date; planned_send_at: Date | null; deadline_at: Date }>(
      `SELECT id, due_at, planned_send_at, deadline_at FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
      [[m.held, more, m.waiting]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(m.held)).toMatchObject({ due_at: at(3600), planned_send_at: at(3600), deadline_at: at(7200) });
    expect(byId.get(more)).toMatchObject({ due_at: T0, planned_send_at: null, deadline_at: T0 });
    expect(byId.get(m.waiting)!.due_at).not.toEqual(at(3600));
    expect(await messagesOfDispatch.held(tx, m.accountId, DISPATCH, null, 10)).toEqual([]);
  });

  own('tells which dispatches have a message sending, and one sent', async (tx) => {
    const m = await dispatchMessages(tx);
    const other = '01900000-0000-7000-8000-0000000000d2';
    const none = '01900000-0000-7000-8000-0000000000d3';
    const done = await insertMessage(tx, { accountId: m.accountId, createdAt: T0 });
    await messagesSet(tx, { ids: [done] }, { dispatch_id: other, status: 'delivered' });
    const activity = await messagesOfDispatch.activity(tx, m.accountId, [DISPATCH, other, none]);
    expect(Object.fromEntries(activity)).toEqual({
      [DISPATCH]: { sending: true, sent: true },
      [other]: { sending: false, sent: false },
      [none]: { sending: false, sent: false },
    });
    expect((await messagesOfDispatch.activity(tx, m.accountId + 1, [DISPATCH])).get(DISPATCH)).toEqual({
      sending: false,
      sent: false,
    });
  });

  if (engine === 'postgres')
    own("the index of messages not held serves a pause's look (its predicate matches the statement)", async (tx) => {
      const m = await dispatchMessages(tx);
      await tx.query('SET LOCAL enable_seqscan = off');
      // Explained, not run: the function finds no row to read its counts from, once the plan is taken.
      const plan = await planOf(tx, (explaining) =>
        messagesOfDispatch.unsettled(explaining, m.accountId, DISPATCH, T0, false).catch(() => undefined),
      );
      expect(JSON.stringify(plan)).toContain('"Index Name":"messages_dispatch_unheld"');
    });
});
