import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../src/db/db.js';
import { claimLimits, messageClaimDue } from '../../src/messages/claimSql.js';
import { messageStop } from '../../src/messages/messageLookupSql.js';
import { historyColumns, type HistoryRow, historyOf } from '../../src/messages/messageObject.js';
import { messageApplyTransitions, messageNoteIgnored, type SubmissionRow } from '../../src/messages/transitionSql.js';
import {
  mergeReceipt,
  type SentRoute,
  sentTransition,
  statusTransition,
  type Transition,
} from '../../src/messages/transitions.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { waitFor } from '../helpers/waitFor.js';
import { insertAccount, insertCallbackTarget, insertMessage } from '../factories/rows.js';
import { messageRows } from '../helpers/messageRows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

interface Row extends HistoryRow {
  status: string;
  connector_id: string | null;
  buy_price: string | null;
}
const rowOf = async (db: Queryable, id: string): Promise<Row> =>
  (
    await db.query<Row>(
      `SELECT status, connector_id, buy_price::text, ${historyColumns('messages')} FROM ${messageRows()} WHERE id = $1`,
      [id],
    )
  )[0]!;
const statuses = (r: Row): string[] => historyOf(r).map((h) => h.status);
const balanceOf = async (db: Queryable, accountId: number): Promise<number> =>
  Number(
    (await db.query<{ amount: string }>('SELECT amount FROM account_balances WHERE account_id = $1', [accountId]))[0]!
      .amount,
  );
const carriersOf = async (db: Queryable, carrierId: string): Promise<string[]> =>
  (
    await db.query<{ message_id: string }>(
      `SELECT message_id FROM submissions WHERE connector_id = 'smsc' AND carrier_id = $1`,
      [carrierId],
    )
  ).map((r) => r.message_id);
const part = (accountId: number, id: string, carrierId: string): SubmissionRow => ({
  connectorId: 'smsc',
  carrierIds: [carrierId],
  accountId,
  id,
  at: at(1),
});
const sent = (accountId: number, id: string) => sentTransition({ accountId, id, connectorId: 'smsc', at: at(1) });

/** A route of SMS through `smsc`, then `other`, rerouting once on an undelivered receipt, as a sent message's. */
async function reroutingRoute(db: Queryable): Promise<SentRoute> {
  const [route] = await db.query<{ id: number }>(
    `INSERT INTO routes (channel_type, match, connectors, strategy, reroute, created_at, updated_at)
     VALUES ('SMS', '{}', '[{"id": "smsc"}, {"id": "other"}]', 'priority',
       '{"max": 1, "onUndelivered": true, "errorCodes": []}', $1, $1) RETURNING id`,
    [T0],
  );
  return { id: Number(route!.id), buyPrice: { amount: '0.5', currency: 'RUB' } };
}

/**
 * The outcome statement (messageApplyTransitions): outside a transaction it runs first without locking its rows, and
 * again, locked, for what did not move; in a caller's transaction once, locked. Whatever it does is done once.
 */
describe.each(ENGINES)("the outcome statement's runs (%s)", (engine) => {
  let testDb: TestDb;
  let db: Db;
  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
  });
  afterAll(async () => testDb?.drop());

  it('moves the rest of a batch once, refunded once, when a message of it does not move', async () => {
    const accountId = (await insertAccount(db, { balance: 10 })).id;
    const stopped = await insertMessage(db, { accountId, createdAt: T0, price: 1 });
    const done = await insertMessage(db, { accountId, createdAt: T0, price: 1, status: 'delivered' });
    const unsent = (id: string) =>
      statusTransition({ accountId, id, status: 'unsent', at: at(1), errorCode: 9003, detail: 'stopped' });
    expect([...(await messageApplyTransitions(db, [unsent(stopped), unsent(done)]))]).toEqual([done]);
    expect(statuses(await rowOf(db, stopped))).toEqual(['sending', 'unsent']);
    expect((await rowOf(db, done)).status).toBe('delivered');
    expect(await balanceOf(db, accountId)).toBe(11);
  });

  it('records a carrier id met twice once, for the message that had it first, and moves every message', async () => {
    const accountId = (await insertAccount(db)).id;
    const [a, b, c] = [
      await insertMessage(db, { accountId, createdAt: T0 }),
      await insertMessage(db, { accountId, createdAt: at(0.001) }),
      await insertMessage(db, { accountId, createdAt: at(0.002) }),
    ];
    const carrier = `twice-${a}`;
    // Twice in one batch: the first run's plain insert fails, and the whole batch runs locked.
    const first = await messageApplyTransitions(
      db,
      [sent(accountId, a), sent(accountId, b)],
      [part(accountId, a, carrier), part(accountId, b, carrier)],
    );
    expect([...first]).toEqual([]);
    // Recorded by an earlier batch: the first run leaves it as it is.
    expect([...(await messageApplyTransitions(db, [sent(accountId, c)], [part(accountId, c, carrier)]))]).toEqual([]);
    expect(await carriersOf(db, carrier)).toEqual([a]);
    for (const id of [a, b, c]) expect(statuses(await rowOf(db, id))).toEqual(['sending', 'sent']);
  });

  it("runs once, locked, in a caller's transaction: a carrier id met twice does not fail it", async () => {
    const accountId = (await insertAccount(db)).id;
    const [a, b] = [
      await insertMessage(db, { accountId, createdAt: T0 }),
      await insertMessage(db, { accountId, createdAt: at(0.001) }),
    ];
    const carrier = `in-tx-${a}`;
    await db.transaction(async (tx) => {
      const unmoved = await messageApplyTransitions(
        tx,
        [sent(accountId, a), sent(accountId, b)],
        [part(accountId, a, carrier), part(accountId, b, carrier)],
      );
      expect([...unmoved]).toEqual([]);
    });
    expect(await carriersOf(db, carrier)).toEqual([a]);
  });

  it('takes a message a receipt reroutes out of the claim record holding it: a stop then stops it', async () => {
    const accountId = (await insertAccount(db)).id;
    const sentRoute = await reroutingRoute(db);
    // Far in the future, so that no other test's claim reaches them, and claimed together: one record.
    const due = new Date('2090-01-01T00:00:00Z');
    const ids = [
      await insertMessage(db, { accountId, createdAt: due, dueAt: due }),
      await insertMessage(db, { accountId, createdAt: due, dueAt: due }),
    ];
    const claimed = await messageClaimDue(db, due, claimLimits(2), 60_000);
    expect(claimed.map((m) => m.id).sort()).toEqual([...ids].sort());
    const record = claimed[0]!.claim_id!;
    const [rerouted, other] = [claimed[0]!.id, claimed[1]!.id];
    await messageApplyTransitions(db, [
      sentTransition({ accountId, id: rerouted, connectorId: 'smsc', at: due, route: sentRoute }),
    ]);
    const undelivered = statusTransition({
      accountId,
      id: rerouted,
      status: 'undelivered',
      at: new Date(due.getTime() + 1000),
      errorCode: 1,
      fromReceipt: true,
      receiptConnector: 'smsc',
    });
    const again: string[] = [];
    await messageApplyTransitions(db, [undelivered], [], undefined, again);
    expect(again).toEqual([rerouted]);
    expect((await rowOf(db, rerouted)).status).toBe('sending');
    const [left] = await db.query<{ ids: string[] }>('SELECT ids FROM message_claims WHERE id = $1', [record]);
    expect(left!.ids).toEqual([other]);
    const answers = await db.transaction((tx) =>
      messageStop(tx, accountId, [rerouted], new Date(due.getTime() + 2000), 9003),
    );
    expect(answers).toMatchObject([{ leased: false, stopped: true }]);
  });

  it("shows the first attempt's time and connector once a reroute has sent it again elsewhere", async () => {
    const accountId = (await insertAccount(db)).id;
    const sentRoute = await reroutingRoute(db);
    const callbackTargetId = await insertCallbackTarget(db, accountId, 'http://127.0.0.1:9/reroute', T0);
    const message = () =>
      insertMessage(db, {
        accountId,
        createdAt: T0,
        dueAt: T0,
        callbackTargetId,
        callbackEvents: ['sent', 'delivered'],
      });
    /** The status callbacks of a message, in order: what the client is told. */
    const told = async (id: string): Promise<string[]> =>
      (
        await db.query<{ status: string }>(
          "SELECT status FROM callback_events WHERE message_id = $1 AND event <> 'price' ORDER BY txid, id",
          [id],
        )
      ).map((e) => e.status);
    const sentBy = (id: string, connectorId: string, second: number) =>
      sentTransition({ accountId, id, connectorId, at: at(second), route: sentRoute });
    const undelivered = (id: string) =>
      statusTransition({ accountId, id, status: 'undelivered', at: at(2), errorCode: 1, fromReceipt: true });
    /** A sent transition with its receipt: the writer merges a receipt that comes with its sent. */
    const withReceipt = (t: Transition, status: 'delivered' | 'undelivered', second: number): Transition => {
      expect(mergeReceipt(t, { status, at: at(second), errorCode: status === 'delivered' ? null : 1 })).toBe(true);
      return t;
    };
    // Told it was sent by the first attempt; sent again alone, and with its receipt.
    const [alone, merged] = [await message(), await message()];
    for (const id of [alone, merged]) {
      await messageApplyTransitions(db, [sentBy(id, 'smsc', 1)]);
      await messageApplyTransitions(db, [undelivered(id)]);
    }
    await messageApplyTransitions(db, [
      sentBy(alone, 'other', 3),
      withReceipt(sentBy(merged, 'other', 3), 'delivered', 4),
    ]);
    for (const [id, status] of [
      [alone, 'sent'],
      [merged, 'delivered'],
    ] as const) {
      const row = await rowOf(db, id);
      // Each carrier paid for what it took; the first sending's time stays the sent time.
      expect(row).toMatchObject({ status, connector_id: 'other', sent_at: at(1), buy_price: '1.0' });
      // The first attempt's entry is stored as its status alone; the row's sent_at and the reroute's first connector
      // give it back. The second attempt's is stored whole, ignored: the client was told it was sent.
      expect(row.history[0]).toEqual({ status: 'sent' });
      const sentEntries = historyOf(row).filter((e) => e.status === 'sent');
      expect(sentEntries).toEqual([
        { status: 'sent', at: at(1).toISOString(), connector: 'smsc' },
        { status: 'sent', at: at(3).toISOString(), connector: 'other', ignored: true, rerouted: true },
      ]);
    }
    expect(historyOf(await rowOf(db, merged)).at(-1)).toEqual({ status: 'delivered', at: at(4).toISOString() });
    expect(await told(alone)).toEqual(['sent']);
    expect(await told(merged)).toEqual(['sent', 'delivered']);

    // Not told by the first attempt (its sent came with the receipt that rerouted it: all of it ignored), a message is
    // told at its second.
    const untold = await message();
    await messageApplyTransitions(db, [withReceipt(sentBy(untold, 'smsc', 1), 'undelivered', 2)]);
    await messageApplyTransitions(db, [sentBy(untold, 'other', 3)]);
    expect(await told(untold)).toEqual(['sent']);
    expect(historyOf(await rowOf(db, untold)).filter((e) => e.status === 'sent')).toEqual([
      { status: 'sent', at: at(1).toISOString(), ignored: true, rerouted: true, connector: 'smsc' },
      { status: 'sent', at: at(3).toISOString(), connector: 'other' },
    ]);
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

  /** Waits until a statement of another session waits for a lock the session `holder` holds. */
  const untilBlockedBy = (db: Queryable, holder: number) =>
    waitFor(
      async () =>
        (
          await db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))',
            [holder],
          )
        )[0]!.n >= 1,
    );
  const backendPid = async (tx: Queryable): Promise<number> =>
    (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;

  it('applies a receipt to the sent version committed while it waited', async () => {
    const db = testDb.db;
    const accountId = (await insertAccount(db)).id;
    const id = await insertMessage(db, { accountId, createdAt: T0 });
    const receipt = statusTransition({ accountId, id, status: 'delivered', at: at(2), errorCode: null });
    let applied: Promise<Set<string>> | undefined;
    await db.transaction(async (tx) => {
      // The sent outcome, not committed yet: the receipt's first run reads the message as it was, in sending (it
      // would record it as sent first, at the receipt's time), and waits for this row.
      await messageApplyTransitions(tx, [sentTransition({ accountId, id, connectorId: 'smsc-a', at: at(1) })]);
      applied = messageApplyTransitions(db, [receipt]);
      await untilBlockedBy(db, await backendPid(tx));
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

  it('records the submission of a sent that the first run left, with it in the second', async () => {
    const db = testDb.db;
    const accountId = (await insertAccount(db)).id;
    const id = await insertMessage(db, { accountId, createdAt: T0 });
    const carrier = `left-${id}`;
    let applied: Promise<Set<string>> | undefined;
    await db.transaction(async (tx) => {
      // Another change of the row (a note of an ignored receipt), not committed yet.
      await messageNoteIgnored(tx, [{ accountId, id, status: 'x', at: T0 }]);
      applied = messageApplyTransitions(db, [sent(accountId, id)], [part(accountId, id, carrier)]);
      await untilBlockedBy(db, await backendPid(tx));
    });
    expect([...(await applied!)]).toEqual([]);
    expect((await rowOf(db, id)).status).toBe('sent');
    expect(await carriersOf(db, carrier)).toEqual([id]);
  });

  /** Another session's change of the message's row (as a note of an ignored receipt), committed once `run` waits. */
  const whileChanged = async <T>(accountId: number, id: string, run: () => Promise<T>): Promise<T> => {
    const db = testDb.db;
    let result: Promise<T> | undefined;
    await db.transaction(async (tx) => {
      await messageNoteIgnored(tx, [{ accountId, id, status: 'x', at: T0 }]);
      result = run();
      await untilBlockedBy(db, await backendPid(tx));
    });
    return result!;
  };

  it("moves a message whose lock waited for a concurrent change, in a caller's transaction", async () => {
    const db = testDb.db;
    const accountId = (await insertAccount(db)).id;
    const id = await insertMessage(db, { accountId, createdAt: T0, status: 'sent' });
    const receipt = statusTransition({ accountId, id, status: 'delivered', at: at(2), errorCode: null });
    // Locked first (in a transaction): the lock gives the changed version, which the statement's update cannot see;
    // the message runs again in a statement of its own.
    const unmoved = await whileChanged(accountId, id, () =>
      db.transaction((tx) => messageApplyTransitions(tx, [receipt])),
    );
    expect([...unmoved]).toEqual([]);
    const row = await rowOf(db, id);
    expect(row.status).toBe('delivered');
    expect(row.history.map((h) => h.status)).toEqual(['x', 'delivered']);
  });

  it('keeps the note of an ignored receipt that waited for a concurrent change of its message', async () => {
    const db = testDb.db;
    const accountId = (await insertAccount(db)).id;
    const id = await insertMessage(db, { accountId, createdAt: T0, status: 'delivered' });
    await whileChanged(accountId, id, () =>
      messageNoteIgnored(db, [{ accountId, id, status: 'delivered', at: at(3) }]),
    );
    expect((await rowOf(db, id)).history.map((h) => h.status)).toEqual(['x', 'delivered']);
  });
});
