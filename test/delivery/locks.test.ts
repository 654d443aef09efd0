import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import pino from 'pino';
import { messageApplyTransitions } from '../../src/messages/transitionSql.js';
import { DeliveryWriter } from '../../src/delivery/deliveryWriter.js';
import { messageApplyReceipts } from '../../src/messages/outcomes.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { sentTransition, statusTransition } from '../../src/messages/transitions.js';
import { messageStop } from '../../src/messages/messageLookupSql.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { runCount } from '../helpers/runCount.js';
import { insertAccount, insertMessage } from '../factories/rows.js';
import { messageRows } from '../helpers/messageRows.js';

const ON_POSTGRES = ENGINES.includes('postgres');
/**
 * Rounds of the race: 200 in `npm test`, as many as HERALD_TEST_LOCK_ROUNDS says in a deep run (1000 nightly). The
 * deadlock this test found in the writer's flush of several statements (fixed in 97b82a0, "deadlocked in round 35")
 * came, with that commit's fix reverted and this race run 24 times on the busy 2-core machine, in rounds 2 to 104
 * (median 13; 2, 3, 4, 4, 5, 6, 8, 8, 10, 10, 10, 13, 13, 13, 15, 15, 15, 21, 24, 25, 35, 41, 53, 104): about one
 * round in 20, so 200 rounds miss it about once in 30,000 runs. The first lock-order bug (63ae630) came in round 2.
 */
const ROUNDS = runCount('HERALD_TEST_LOCK_ROUNDS', 200);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`HERALD_TEST_LOCK_ROUNDS: not a positive integer`);
const NOW = new Date('2026-03-10T09:00:00Z');
const silent = pino({ level: 'silent' });

/** A seeded shuffle, so that a failing round can be run again. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Every statement that changes messages and balances takes its locks in one global order (messages by account and
 * id, then balances by account and currency), and a transaction of several statements locks all its messages first:
 * stops, receipts, the writer's flushes and status changes with refunds across accounts, racing on the same rows in
 * every order, never deadlock. PostgreSQL only: PGlite has one connection.
 */
describe.runIf(ON_POSTGRES)('lock order under concurrent stop, receipts and refunds (PostgreSQL)', () => {
  let testDb: TestDb;
  let db: Db;
  let accounts: number[];

  beforeAll(async () => {
    testDb = await openTestDb('postgres');
    db = testDb.db;
    accounts = [];
    for (let i = 0; i < 3; i++) accounts.push((await insertAccount(db, { balance: 1_000_000 })).id);
  });
  afterAll(async () => testDb?.drop());

  it(`never deadlocks in ${ROUNDS} rounds, and refunds each message once`, async () => {
    const errors: string[] = [];
    let refundsExpected = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Two messages per account: one waiting to be sent, one sent with a submission that a receipt will find.
      const waiting: { accountId: number; id: string }[] = [];
      const sent: { accountId: number; id: string; carrierId: string }[] = [];
      for (const accountId of accounts) {
        waiting.push({ accountId, id: await insertMessage(db, { accountId, price: 1, createdAt: NOW }) });
        const id = await insertMessage(db, { accountId, price: 1, createdAt: NOW });
        sent.push({ accountId, id, carrierId: `r${round}-${id}` });
      }
      await messageApplyTransitions(
        db,
        sent.map((m) => sentTransition({ accountId: m.accountId, id: m.id, connectorId: 'lock-test', at: NOW })),
        sent.map((m) => ({
          connectorId: 'lock-test',
          carrierIds: [m.carrierId],
          accountId: m.accountId,
          id: m.id,
          at: NOW,
        })),
      );
      const all = [...waiting, ...sent];
      const unsent = (seed: number) =>
        shuffled(all, seed).map((m) =>
          statusTransition({ accountId: m.accountId, id: m.id, status: 'unsent', at: NOW, errorCode: 1 }),
        );
      const work: Promise<unknown>[] = [
        // A writer's flush: unsent across all accounts (refunds in three accounts), in a shuffled order.
        db.transaction((tx) => messageApplyTransitions(tx, unsent(round * 7 + 1))),
        // Another process's flush of the same messages, in another order.
        messageApplyTransitions(db, unsent(round * 7 + 2)),
        // A writer's own flush of several statements in one transaction: status changes with refunds, then
        // receipts it matches through the submissions table (not its own submissions).
        (async () => {
          const writer = new DeliveryWriter(db, silent, { maxBatch: 100, lingerMs: 0 });
          const flushed = [
            ...shuffled(waiting, round * 7 + 5).map((m) =>
              writer.status({ accountId: m.accountId, id: m.id, status: 'unsent', at: NOW, errorCode: 3 }),
            ),
            writer.receipts(
              shuffled(sent, round * 7 + 6).map((m) => ({
                connectorId: 'lock-test',
                carrierId: m.carrierId,
                state: 'unsent' as const,
                at: NOW,
                errorCode: 4,
              })),
            ),
          ];
          await writer.drain();
          await Promise.all(flushed);
        })(),
        // Receipts matched through the database, in a transaction.
        db.transaction((tx) =>
          messageApplyReceipts(
            tx,
            shuffled(sent, round * 7 + 3).map((m) => ({
              connectorId: 'lock-test',
              carrierId: m.carrierId,
              state: 'unsent' as const,
              at: NOW,
              errorCode: 2,
            })),
          ),
        ),
        // Clients stopping their messages, one request per account.
        ...accounts.map((accountId, i) =>
          db.transaction((tx) =>
            messageStop(
              tx,
              accountId,
              shuffled(
                all.filter((m) => m.accountId === accountId).map((m) => m.id),
                round * 7 + 4 + i,
              ),
              NOW,
              DELIVERY_ERRORS.stopped,
            ),
          ),
        ),
      ];
      for (const outcome of await Promise.allSettled(work)) {
        if (outcome.status === 'rejected') errors.push(`round ${round}: ${String((outcome.reason as Error).message)}`);
      }
      refundsExpected += all.length;
      if (errors.length > 0) break;
    }
    expect(errors).toEqual([]);
    const [refunds] = await db.query<{ n: number; total: string }>(
      `SELECT count(*)::int AS n, coalesce(sum(price), 0) AS total FROM ${messageRows()} WHERE status = 'unsent' ` +
        'AND price_refunded',
    );
    expect(refunds!.n).toBe(refundsExpected);
    // Each refund was credited once: every balance is back where it started.
    const balances = await db.query<{ amount: string }>(
      'SELECT amount FROM account_balances WHERE account_id = ANY($1::bigint[])',
      [accounts],
    );
    expect(balances.map((b) => Number(b.amount))).toEqual([1_000_000, 1_000_000, 1_000_000].map((v) => v + ROUNDS * 2));
  }, 600_000);
});
