import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { callbackPostNextDue, callbackPostsClaim } from '../../src/callbacks/postSql.js';
import {
  callbackSmppAck,
  callbackSmppEnd,
  callbackSmppPostEvents,
  callbackSmppPostsClaim,
  callbackSmppRelease,
  callbackSmppRenew,
  callbackSmppWaiting,
  SMPP_BINDS_URL,
  type SmppPost,
} from '../../src/callbacks/smppPostSql.js';
import { ENGINES } from '../helpers/engines.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { insertAccount, insertCallbackDelivery, insertCallbackEvent, insertCallbackTarget } from '../factories/rows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const LEASE_MS = 60_000;

/** Leases the accounts' POSTs, at most `limit` of each. */
const claim = (db: Queryable, accountIds: number[], now: Date, limit = 10): Promise<SmppPost[]> =>
  callbackSmppPostsClaim(
    db,
    accountIds.map((accountId) => ({ accountId, limit })),
    now,
    LEASE_MS,
    10,
  );

/** An open SMPP POST of the account's smpp:binds target with `events` events in `lane`, as forming leaves it. */
async function smppPost(
  tx: Queryable,
  accountId: number,
  events = 2,
  lane = 0,
): Promise<{ id: string; eventIds: number[] }> {
  const targetId = await insertCallbackTarget(tx, accountId, SMPP_BINDS_URL, T0);
  const made = [];
  for (let i = 0; i < events; i++) made.push(await insertCallbackEvent(tx, { targetId, accountId, lane }));
  const post = await insertCallbackDelivery(tx, {
    accountId,
    targetId,
    lane,
    last: made.at(-1)!,
    events,
  });
  await tx.query(`UPDATE callback_deliveries SET via_smpp = true, next_attempt_at = 'infinity' WHERE id = $1`, [
    post.id,
  ]);
  return { id: post.id, eventIds: made.map((e) => Number(e.id)) };
}

/** The SMPP server's statements on the callback outbox (callbacks/smppPostSql.ts), each test rolled back. */
describe.each(ENGINES)('SMPP POSTs of the callback outbox (%s)', (engine) => {
  const ownRows = ownRowsTests(engine);
  const own = (name: string, fn: (tx: Queryable, accountId: number) => Promise<void>): void =>
    ownRows(name, async (tx) => fn(tx, (await insertAccount(tx)).id));

  own('are never due for the HTTP sender, nor keep it awake', async (tx, accountId) => {
    await smppPost(tx, accountId);
    expect(await callbackPostsClaim(tx, at(10 ** 6), 100, LEASE_MS)).toEqual([]);
    expect(await callbackPostNextDue(tx)).toBeNull();
  });

  own('are leased to one process at a time, per account, and again once the lease runs out', async (tx, accountId) => {
    const post = await smppPost(tx, accountId);
    const other = (await insertAccount(tx)).id;
    expect(await claim(tx, [other], T0)).toEqual([]);
    const claimed = await claim(tx, [accountId], T0);
    expect(claimed).toMatchObject([{ id: post.id, account_id: accountId, lane: 0, lease_until: at(60) }]);
    expect(await claim(tx, [accountId], at(59))).toEqual([]);
    expect((await claim(tx, [accountId], at(60))).map((p) => p.id)).toEqual([post.id]);
  });

  own('deliver each event until acknowledged; the POST ends with its last acknowledgement', async (tx, accountId) => {
    const post = await smppPost(tx, accountId, 3);
    const [claimed] = await claim(tx, [accountId], T0);
    const events = (await callbackSmppPostEvents(tx, [claimed!])).get(claimed!.id)!;
    expect(events.map((e) => Number(e.event_id))).toEqual(post.eventIds);
    expect(await callbackSmppWaiting(tx)).toBe(3);

    expect(await callbackSmppAck(tx, post.id, [post.eventIds[1]!], T0)).toBe(false);
    expect(await callbackSmppWaiting(tx)).toBe(2);
    // An acknowledged event is not sent again, even when the POST is taken again.
    await callbackSmppRelease(tx, new Map([[post.id, claimed!.lease_until]]), null);
    const [again] = await claim(tx, [accountId], at(1));
    expect((await callbackSmppPostEvents(tx, [again!])).get(again!.id)!.map((e) => Number(e.event_id))).toEqual([
      post.eventIds[0],
      post.eventIds[2],
    ]);
    // Acknowledged twice (a client answering again) counts once.
    expect(await callbackSmppAck(tx, post.id, [post.eventIds[1]!, post.eventIds[0]!], at(2))).toBe(false);
    expect(await callbackSmppAck(tx, post.id, [post.eventIds[2]!], at(3))).toBe(true);
    const [row] = await tx.query<{ state: string; finished_at: Date }>(
      'SELECT state, finished_at FROM callback_deliveries WHERE id = $1',
      [post.id],
    );
    expect(row).toEqual({ state: 'delivered', finished_at: at(3) });
    expect(await tx.query('SELECT 1 FROM smpp_receipt_acks WHERE delivery_id = $1', [post.id])).toEqual([]);
    expect(await callbackSmppWaiting(tx)).toBe(0);
  });

  own(
    "are leased in turns within the room, each account's oldest first and within its limit",
    async (tx, accountId) => {
      const other = (await insertAccount(tx)).id;
      // Bound, below its limit, with nothing open: it takes no place.
      const idle = (await insertAccount(tx)).id;
      const mine = [];
      for (const lane of [0, 1, 2]) mine.push(await smppPost(tx, accountId, 2, lane));
      const others = [await smppPost(tx, other, 2, 0), await smppPost(tx, other, 2, 1)];
      // The newest first in the table's order, so that "oldest first" is the statement's doing.
      for (const [i, post] of [...mine, ...others].entries())
        await tx.query('UPDATE callback_deliveries SET created_at = $2 WHERE id = $1', [post.id, at(10 - i)]);
      const shares = [idle, accountId, other].map((id) => ({ accountId: id, limit: 2 }));
      // Three places: the first turn gives each account with POSTs its oldest, the second the next one of the first.
      const claimed = await callbackSmppPostsClaim(tx, shares, T0, LEASE_MS, 3);
      expect(claimed.map((p) => p.id).sort()).toEqual([mine[2]!.id, mine[1]!.id, others[1]!.id].sort());
      // What is left goes to the next claim; the limit holds with room to spare.
      expect((await callbackSmppPostsClaim(tx, shares.slice(1), T0, LEASE_MS, 10)).map((p) => p.id).sort()).toEqual(
        [mine[0]!.id, others[0]!.id].sort(),
      );
    },
  );

  own('give one place to the account whose turn comes first', async (tx, accountId) => {
    const other = (await insertAccount(tx)).id;
    const mine = await smppPost(tx, accountId);
    const theirs = await smppPost(tx, other);
    const shares = (first: number, second: number) => [first, second].map((id) => ({ accountId: id, limit: 1 }));
    expect((await callbackSmppPostsClaim(tx, shares(other, accountId), T0, LEASE_MS, 1)).map((p) => p.id)).toEqual([
      theirs.id,
    ]);
    expect((await callbackSmppPostsClaim(tx, shares(other, accountId), T0, LEASE_MS, 1)).map((p) => p.id)).toEqual([
      mine.id,
    ]);
    expect(await callbackSmppPostsClaim(tx, shares(other, accountId), T0, LEASE_MS, 0)).toEqual([]);
  });

  own("read a claim's events in one statement, each POST's apart and in order", async (tx, accountId) => {
    const other = (await insertAccount(tx)).id;
    const a = await smppPost(tx, accountId, 2);
    const b = await smppPost(tx, other, 3);
    const claimed = await claim(tx, [accountId, other], T0);
    expect(claimed.map((p) => p.attempts)).toEqual([1, 1]);
    const events = await callbackSmppPostEvents(tx, claimed);
    expect(events.get(a.id)!.map((e) => Number(e.event_id))).toEqual(a.eventIds);
    expect(events.get(b.id)!.map((e) => Number(e.event_id))).toEqual(b.eventIds);
    expect(await callbackSmppPostEvents(tx, [])).toEqual(new Map());
  });

  own('end at once when every event left is acknowledged, with no row per event', async (tx, accountId) => {
    const post = await smppPost(tx, accountId, 3);
    await claim(tx, [accountId], T0);
    // One acknowledged on an earlier lease; the other two now: the POST ends, its acknowledgement rows go.
    expect(await callbackSmppAck(tx, post.id, [post.eventIds[0]!], T0)).toBe(false);
    // Another POST of the account, all of its events acknowledged too, ends in the same statement.
    const other = await smppPost(tx, accountId, 2);
    expect(await callbackSmppEnd(tx, [post.id, other.id], at(1))).toEqual(new Set([post.id, other.id]));
    const [row] = await tx.query<{ state: string; finished_at: Date; smpp_lease_until: Date | null }>(
      'SELECT state, finished_at, smpp_lease_until FROM callback_deliveries WHERE id = $1',
      [post.id],
    );
    expect(row).toEqual({ state: 'delivered', finished_at: at(1), smpp_lease_until: null });
    expect(await tx.query('SELECT 1 FROM smpp_receipt_acks WHERE delivery_id = $1', [post.id])).toEqual([]);
    expect(await callbackSmppWaiting(tx)).toBe(0);
    // Ended once: a second process whose lease ran out finds it ended.
    expect(await callbackSmppEnd(tx, [post.id], at(2))).toEqual(new Set());
    expect(await callbackSmppEnd(tx, [], at(2))).toEqual(new Set());
  });

  own('renewed while the lease is the one the process took, never once another took it', async (tx, accountId) => {
    const post = await smppPost(tx, accountId);
    await claim(tx, [accountId], T0);
    // Held past half its lease: renewed to a whole one from then.
    expect(await callbackSmppRenew(tx, new Map([[post.id, at(60)]]), at(31 + 60))).toEqual(new Set([post.id]));
    expect(await claim(tx, [accountId], at(60))).toEqual([]);
    // Its lease ran out (the process stalled) and another process took it: the first process renews nothing.
    expect(await claim(tx, [accountId], at(91))).toHaveLength(1);
    expect(await callbackSmppRenew(tx, new Map([[post.id, at(91)]]), at(200))).toEqual(new Set());
    expect(await claim(tx, [accountId], at(91 + 59))).toEqual([]);
    expect(await claim(tx, [accountId], at(91 + 60))).toHaveLength(1);
    expect(await callbackSmppRenew(tx, new Map(), at(300))).toEqual(new Set());
  });

  own('given back at once (a bind closed) or from a time on (a client refused)', async (tx, accountId) => {
    const post = await smppPost(tx, accountId);
    const [first] = await claim(tx, [accountId], T0);
    expect(first!.lease_until).toEqual(at(60));
    await callbackSmppRelease(tx, new Map([[post.id, first!.lease_until]]), at(5));
    expect(await claim(tx, [accountId], at(4))).toEqual([]);
    const [second] = await claim(tx, [accountId], at(5));
    await callbackSmppRelease(tx, new Map([[post.id, second!.lease_until]]), null);
    expect(await claim(tx, [accountId], at(5))).toHaveLength(1);
  });

  own(
    'given back only while the lease is the one the process took, never once another took it',
    async (tx, accountId) => {
      const post = await smppPost(tx, accountId);
      const [first] = await claim(tx, [accountId], T0);
      // Its lease ran out (the process stalled) and another took it: the first one giving it back changes nothing.
      const [second] = await claim(tx, [accountId], at(60));
      expect(second!.lease_until).toEqual(at(120));
      await callbackSmppRelease(tx, new Map([[post.id, first!.lease_until]]), null);
      await callbackSmppRelease(tx, new Map([[post.id, first!.lease_until]]), at(61));
      expect(await claim(tx, [accountId], at(119))).toEqual([]);
      const [leased] = await tx.query<{ until: Date }>(
        `SELECT smpp_lease_until AS until FROM callback_deliveries WHERE id = $1`,
        [post.id],
      );
      expect(leased!.until).toEqual(at(120));
      await callbackSmppRelease(tx, new Map(), null);
    },
  );
});
