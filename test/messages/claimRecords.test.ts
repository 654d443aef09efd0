import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { CLAIM_LOCK, claimLimits, messageClaimDue, messageClaimsEnd } from '../../src/messages/claimSql.js';
import { hold } from '../../src/messages/dispatchMessageSql.js';
import { messageStop } from '../../src/messages/messageLookupSql.js';
import { messageApplyTransitions } from '../../src/messages/transitionSql.js';
import { retryTransition } from '../../src/messages/transitions.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { waitFor } from '../helpers/waitFor.js';
import { insertAccount, insertMessage } from '../factories/rows.js';
import { messageRows } from '../helpers/messageRows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const LEASE_MS = 60_000;
const STOPPED = 9003;

/** The statuses of messages and whether each is held (due never), by id. */
const states = async (db: Queryable, ids: readonly string[]): Promise<{ status: string; held: boolean }[]> =>
  db.query(`SELECT status, due_at = 'infinity' AS held FROM ${messageRows()} WHERE id = ANY($1::uuid[]) ORDER BY id`, [
    ids,
  ]);

describe.each(ENGINES)('claims as records: what leaves messages in hand alone (%s)', (engine) => {
  const own = ownRowsTests(engine);

  own('a stop answers leased for a message a claim record holds, and stops it once the record is gone', async (tx) => {
    const accountId = (await insertAccount(tx)).id;
    const id = await insertMessage(tx, { accountId, createdAt: T0 });
    const [claimed] = await messageClaimDue(tx, at(1), claimLimits(10), LEASE_MS);
    expect(claimed?.id).toBe(id);
    expect(await messageStop(tx, accountId, [id], at(2), STOPPED)).toMatchObject([
      { id, status: 'sending', leased: true, stopped: false },
    ]);
    // Past its lease it is no longer in a worker's hands, record or not.
    expect(await messageStop(tx, accountId, [id], at(61), STOPPED)).toMatchObject([
      { id, leased: false, stopped: true },
    ]);
    expect((await states(tx, [id]))[0]!.status).toBe('unsent');
  });

  own("a retry leaves its claim's record: a stop takes it while the claim's others are in hand", async (tx) => {
    const accountId = (await insertAccount(tx)).id;
    const ids = [
      await insertMessage(tx, { accountId, createdAt: T0 }),
      await insertMessage(tx, { accountId, createdAt: at(0.001) }),
    ];
    const claimed = await messageClaimDue(tx, at(1), claimLimits(10), LEASE_MS);
    expect(claimed.map((m) => m.id)).toEqual(ids);
    const [first] = claimed;
    await messageApplyTransitions(tx, [
      retryTransition({
        accountId,
        id: first!.id,
        dueAt: at(30),
        at: at(2),
        reason: 'not bound',
        attempt: first!.attempts,
        claim: first!.claim_id!,
      }),
    ]);
    expect(await messageStop(tx, accountId, ids, at(3), STOPPED)).toMatchObject([
      { id: ids[0], leased: false, stopped: true },
      { id: ids[1], leased: true, stopped: false },
    ]);
  });

  own("a pause holds a dispatch's waiting messages, not those a claim record holds", async (tx) => {
    const accountId = (await insertAccount(tx)).id;
    const dispatchId = '01900000-0000-7000-8000-0000000000d1';
    const ids = [
      await insertMessage(tx, { accountId, createdAt: T0 }),
      await insertMessage(tx, { accountId, createdAt: at(0.001) }),
    ];
    await tx.query('UPDATE messages SET dispatch_id = $2 WHERE id = ANY($1::uuid[])', [ids, dispatchId]);
    const [claimed] = await messageClaimDue(tx, at(1), claimLimits(1), LEASE_MS);
    expect(claimed?.id).toBe(ids[0]);
    expect(await hold(tx, accountId, dispatchId, at(2))).toBe(1);
    expect((await states(tx, ids)).map((s) => s.held)).toEqual([false, true]);
    // Its outcome written, the record goes: the next pause's look holds it too.
    await messageClaimsEnd(tx, [claimed!.claim_id!]);
    expect(await hold(tx, accountId, dispatchId, at(3))).toBe(1);
  });
});

describe.runIf(ENGINES.includes('postgres'))('claims as records between transactions (postgres)', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('postgres');
  });
  afterAll(async () => testDb?.drop());
  // Each test's claims see only its own messages.
  beforeEach(async () => {
    await testDb.db.query('DELETE FROM message_claims');
    await testDb.db.query('DELETE FROM messages');
  });

  /** Waits until a statement of another transaction waits for the claims' advisory lock. */
  const untilWaitingForTheClaimLock = (db: Queryable) =>
    waitFor(
      async () =>
        (
          await db.query<{ n: number }>(
            // The claims' lock of this schema (claimSql.ts: its key and the schema's): classid, objid.
            `SELECT count(*)::int AS n FROM pg_locks
             WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2 AND classid = $1::bigint::oid
               AND objid = (hashtext(current_schema())::bigint & 4294967295)::oid`,
            [CLAIM_LOCK],
          )
        )[0]!.n === 1,
    );

  it('runs claims one at a time: a claim waits for the one being made and takes none of its messages', async () => {
    const db = testDb.db;
    const accountId = (await insertAccount(db)).id;
    const ids = [
      await insertMessage(db, { accountId, createdAt: T0 }),
      await insertMessage(db, { accountId, createdAt: at(0.001) }),
    ];
    let second: Promise<string[]> | undefined;
    const first = await db.transaction(async (tx) => {
      const taken = await messageClaimDue(tx, at(1), claimLimits(1), LEASE_MS);
      // Its snapshot, were it taken now, would not hold the first claim's record: it waits for the commit.
      second = messageClaimDue(db, at(1), claimLimits(10), LEASE_MS).then((m) => m.map((x) => x.id));
      await untilWaitingForTheClaimLock(db);
      return taken.map((m) => m.id);
    });
    expect(first).toEqual([ids[0]]);
    expect(await second).toEqual([ids[1]]);
  });

  it('makes a stop wait for a claim being made, and then answer leased for what it took', async () => {
    const db = testDb.db;
    const accountId = (await insertAccount(db)).id;
    const id = await insertMessage(db, { accountId, createdAt: T0 });
    let stop: Promise<{ leased: boolean; stopped: boolean }[]> | undefined;
    await db.transaction(async (tx) => {
      expect((await messageClaimDue(tx, at(1), claimLimits(10), LEASE_MS)).map((m) => m.id)).toEqual([id]);
      stop = db.transaction((other) => messageStop(other, accountId, [id], at(2), STOPPED));
      await untilWaitingForTheClaimLock(db);
    });
    expect(await stop).toMatchObject([{ leased: true, stopped: false }]);
    expect((await states(db, [id]))[0]!.status).toBe('sending');
  });
});
