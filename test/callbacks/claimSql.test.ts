import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { callbackPostsClaim, callbackPostsRecord } from '../../src/callbacks/postSql.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, subplanNodes } from '../helpers/plans.js';
import { describeClaimSkipsLocked, ownRowsTests } from '../helpers/transactions.js';
import { insertAccount, insertCallbackDelivery, insertCallbackEvent, insertCallbackTarget } from '../factories/rows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const LEASE_MS = 60_000;
/** Delivery ids in id order, for deliveries due at the same instant. */
const IDS = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
];

const claimedIds = async (db: Queryable, now: Date, limit = 100): Promise<string[]> =>
  (await callbackPostsClaim(db, now, limit, LEASE_MS)).map((d) => d.id).sort();
const nextAttemptAt = async (db: Queryable, id: string): Promise<{ next_attempt_at: Date; attempts: number }> =>
  (
    await db.query<{ next_attempt_at: Date; attempts: number }>(
      'SELECT next_attempt_at, attempts FROM callback_deliveries WHERE id = $1',
      [id],
    )
  )[0]!;

/** The callback sender's claim on its own, each test in a transaction rolled back at its end. */
describe.each(ENGINES)('callback deliveries: the claim (%s)', (engine) => {
  const ownRows = ownRowsTests(engine);
  /** A test that owns its rows (see ownRowsTests), given a new account. */
  const own = (name: string, fn: (tx: Queryable, accountId: number) => Promise<void>): void =>
    ownRows(name, async (tx) => fn(tx, (await insertAccount(tx)).id));

  own('claims only open deliveries that are due by now, with what sending them needs', async (tx, accountId) => {
    const early = await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(-10), lane: 5, attempts: 2 });
    const onTime = await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(0) });
    await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(1) });
    await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(-10), state: 'delivered' });
    await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(-10), state: 'failed', attempts: 9 });
    const claimed = await callbackPostsClaim(tx, at(0), 100, LEASE_MS);
    expect(claimed.map((d) => d.id).sort()).toEqual([early.id, onTime.id].sort());
    const [secret] = await tx.query<{ callback_secret: string }>('SELECT callback_secret FROM accounts WHERE id = $1', [
      accountId,
    ]);
    expect(claimed.find((d) => d.id === early.id)).toMatchObject({
      account_id: accountId,
      target_id: early.targetId,
      lane: 5,
      url: `http://127.0.0.1:9/${early.id}`,
      secret: secret!.callback_secret,
      attempts: 2,
      only_messages: null,
    });
  });

  own(
    'leases what it claims: the next attempt moves to now + lease, and it is claimed again when that runs out',
    async (tx, accountId) => {
      const { id } = await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(-10) });
      expect(await claimedIds(tx, at(0))).toEqual([id]);
      // A claim is not an attempt: the sender records those.
      expect(await nextAttemptAt(tx, id)).toEqual({ next_attempt_at: at(60), attempts: 0 });
      expect(await claimedIds(tx, at(59.999))).toEqual([]);
      expect(await claimedIds(tx, at(60))).toEqual([id]);
      expect(await nextAttemptAt(tx, id)).toEqual({ next_attempt_at: at(120), attempts: 0 });
    },
  );

  own(
    'takes the earliest due first, by id among those due at the same instant, at most `limit`',
    async (tx, accountId) => {
      // Written in the reverse of id order, so that neither the heap nor an index on the due time alone has them in
      // order.
      for (const id of [...IDS].reverse()) await insertCallbackDelivery(tx, { accountId, id, nextAttemptAt: at(-5) });
      const earliest = await insertCallbackDelivery(tx, { accountId, nextAttemptAt: at(-6) });
      expect(await claimedIds(tx, at(0), 1)).toEqual([earliest.id]);
      expect(await claimedIds(tx, at(0), 2)).toEqual(IDS.slice(0, 2));
      expect(await claimedIds(tx, at(0), 2)).toEqual(IDS.slice(2));
    },
  );

  own(
    'holds a delivery of held messages while an older open delivery of its lane carries one of them',
    async (tx, accountId) => {
      const targetId = await insertCallbackTarget(tx, accountId, 'http://127.0.0.1:9/held', T0);
      const lane = 7;
      const event = (messageId?: string) =>
        insertCallbackEvent(tx, { targetId, accountId, lane, ...(messageId ? { messageId } : {}) });
      const x = await event();
      const other = await event();
      const laterOfX = await event(x.messageId);
      const laterOfOther = await event(other.messageId);
      // The receiver refused the older delivery: it is open, with its retry due.
      const refused = await insertCallbackDelivery(tx, {
        accountId,
        targetId,
        lane,
        last: other,
        events: 2,
        attempts: 1,
      });
      const ofX = await insertCallbackDelivery(tx, {
        accountId,
        targetId,
        lane,
        after: other,
        last: laterOfX,
        onlyMessages: [x.messageId],
      });
      const ofNoneHeld = await insertCallbackDelivery(tx, {
        accountId,
        targetId,
        lane,
        after: laterOfX,
        last: laterOfOther,
        onlyMessages: [randomUUID()],
      });
      expect(await claimedIds(tx, at(0))).toEqual([refused.id, ofNoneHeld.id].sort());
      await callbackPostsRecord(tx, [
        {
          postId: refused.id,
          accountId,
          at: at(1),
          httpStatus: 200,
          latencyMs: 1,
          error: null,
          result: 'delivered',
          nextAttemptAt: null,
          leaseUntil: new Date(at(0).getTime() + LEASE_MS),
        },
      ]);
      expect(await claimedIds(tx, at(1))).toEqual([ofX.id]);
    },
  );

  own(
    'is an index scan of callback_deliveries_due that stops at the limit, with no sort of the due deliveries',
    async (tx, accountId) => {
      const targetId = await insertCallbackTarget(tx, accountId, 'http://127.0.0.1:9/many', T0);
      // Refused once each (attempts 1): a lane holds any number of those.
      await tx.query(
        `INSERT INTO callback_deliveries (id, account_id, target_id, lane, after_txid, after_event_id, last_txid,
         last_event_id, events, state, attempts, next_attempt_at, window_started_at, created_at)
       SELECT gen_random_uuid(), $1, $2, i % 16, '0', 0, '0', 0, 1, 'open', 1,
         $3::timestamptz - (i % 300) * interval '1 second', $3, $3
       FROM generate_series(1, 20000) i`,
        [accountId, targetId, T0],
      );
      await tx.query('ANALYZE callback_deliveries');
      const plan = await planOf(tx, (explaining) => callbackPostsClaim(explaining, at(0), 100, LEASE_MS));
      // (The nodes after these are the look for an older delivery of held messages, a filter on each row.)
      expect(subplanNodes(plan, 'CTE due').slice(0, 3)).toEqual([
        { type: 'Limit', index: undefined },
        { type: 'LockRows', index: undefined },
        { type: 'Index Scan', index: 'callback_deliveries_due' },
      ]);
    },
  );
});

describeClaimSkipsLocked('callback deliveries: a claim skips deliveries another transaction holds (PostgreSQL)', {
  table: 'callback_deliveries',
  insertDue: async (db) =>
    (await insertCallbackDelivery(db, { accountId: (await insertAccount(db)).id, nextAttemptAt: at(-1) })).id,
  claim: (db) => claimedIds(db, at(0)),
});
