import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { historyOf } from '../../src/messages/messageObject.js';
import { messageApplyTransitions } from '../../src/messages/transitionSql.js';
import { sentTransition, statusTransition } from '../../src/messages/transitions.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { waitFor } from '../helpers/waitFor.js';
import { insertAccount, insertMessage } from '../factories/rows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

interface Row {
  status: string;
  connector_id: string | null;
  direction: 'outbound' | 'inbound';
  created_at: Date;
  history: { status: string; at: string }[];
}
const rowOf = async (db: Queryable, id: string): Promise<Row> =>
  (
    await db.query<Row>('SELECT status, connector_id, direction, created_at, history FROM messages WHERE id = $1', [id])
  )[0]!;
const statuses = (r: Row): string[] => historyOf(r).map((h) => h.status);
const balanceOf = async (db: Queryable, accountId: number): Promise<string> =>
  (await db.query<{ amount: string }>('SELECT amount FROM account_balances WHERE account_id = $1', [accountId]))[0]!
    .amount;

/**
 * The outcome statement runs first without locking its rows, and again with them locked first for what did not
 * move (messageApplyTransitions): whatever the first run did is done once.
 */
describe.each(ENGINES)("the outcome statement's two runs (%s)", (engine) => {
  const own = ownRowsTests(engine);

  own(
    "in a caller's transaction, undoes a first run that left a message unmoved: the rest moves once, refunds once",
    async (tx) => {
      const accountId = (await insertAccount(tx, { balance: 10 })).id;
      const stopped = await insertMessage(tx, { accountId, createdAt: T0, price: 1 });
      const done = await insertMessage(tx, { accountId, createdAt: T0, price: 1, status: 'delivered' });
      const unsent = (id: string) =>
        statusTransition({ accountId, id, status: 'unsent', at: at(1), errorCode: 9003, detail: 'stopped' });
      const unmoved = await messageApplyTransitions(tx, [unsent(stopped), unsent(done)]);
      expect([...unmoved]).toEqual([done]);
      expect(statuses(await rowOf(tx, stopped))).toEqual(['sending', 'unsent']);
      expect((await rowOf(tx, done)).status).toBe('delivered');
      // The price refunded once: the first run's refund was undone with it.
      expect(Number(await balanceOf(tx, accountId))).toBe(11);
    },
  );

  own('records a carrier id met twice once, for the message that had it first, and moves every message', async (tx) => {
    const accountId = (await insertAccount(tx)).id;
    const [a, b, c] = [
      await insertMessage(tx, { accountId, createdAt: T0 }),
      await insertMessage(tx, { accountId, createdAt: at(0.001) }),
      await insertMessage(tx, { accountId, createdAt: at(0.002) }),
    ];
    const sent = (id: string) => sentTransition({ accountId, id, connectorId: 'smsc', at: at(1) });
    const part = (id: string, carrierId: string) => ({
      connectorId: 'smsc',
      carrierIds: [carrierId],
      accountId,
      id,
      at: at(1),
    });
    // Twice in one batch: the first run's plain insert fails, and the second records the first.
    expect([...(await messageApplyTransitions(tx, [sent(a), sent(b)], [part(a, 'c-1'), part(b, 'c-1')]))]).toEqual([]);
    // Recorded by an earlier batch: the first run leaves it as it is.
    expect([...(await messageApplyTransitions(tx, [sent(c)], [part(c, 'c-1')]))]).toEqual([]);
    const recorded = await tx.query<{ message_id: string }>(
      `SELECT message_id FROM submissions WHERE connector_id = 'smsc' AND carrier_id = 'c-1'`,
    );
    expect(recorded).toEqual([{ message_id: a }]);
    for (const id of [a, b, c]) expect(statuses(await rowOf(tx, id))).toEqual(['sending', 'sent']);
  });
});

/**
 * What the first run does when another transaction changes its rows: a row changed since it was read is left to
 * the second run, which reads it as it is then. PostgreSQL only: PGlite has one connection.
 */
describe.runIf(ENGINES.includes('postgres'))("the outcome statement's first run, raced (postgres)", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('postgres');
  });
  afterAll(async () => testDb?.drop());

  /** Waits until a statement of another session waits for a row lock (a transaction id) of messages. */
  const untilWaitingForARow = (db: Queryable) =>
    waitFor(
      async () =>
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted`,
          )
        )[0]!.n >= 1,
    );

  for (const inTransaction of [true, false]) {
    const how = inTransaction ? 'in a transaction' : 'autocommit';
    it(`applies a receipt to the sent version committed while it waited (${how})`, async () => {
      const db = testDb.db;
      const accountId = (await insertAccount(db)).id;
      const id = await insertMessage(db, { accountId, createdAt: T0 });
      const receipt = statusTransition({ accountId, id, status: 'delivered', at: at(2), errorCode: null });
      let applied: Promise<Set<string>> | undefined;
      await db.transaction(async (tx) => {
        // The sent outcome, not committed yet: the receipt's statement reads the message as it was, in sending (a
        // first run would record it as sent first, at the receipt's time), and waits for this row.
        await messageApplyTransitions(tx, [sentTransition({ accountId, id, connectorId: 'smsc-a', at: at(1) })]);
        applied = inTransaction
          ? db.transaction((other) => messageApplyTransitions(other, [receipt]))
          : messageApplyTransitions(db, [receipt]);
        await untilWaitingForARow(db);
      });
      expect([...(await applied!)]).toEqual([]);
      const row = await rowOf(db, id);
      expect(row).toMatchObject({ status: 'delivered', connector_id: 'smsc-a' });
      // One sent entry, the sent outcome's: not a second one from the version read before it.
      expect(historyOf(row).map((h) => [h.status, new Date(h.at).toISOString()])).toEqual([
        ['sending', T0.toISOString()],
        ['sent', at(1).toISOString()],
        ['delivered', at(2).toISOString()],
      ]);
    });
  }
});
