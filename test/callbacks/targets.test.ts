import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CALLBACK_TARGET_IDLE_MS,
  CALLBACK_TARGET_TRUST_MS,
  CallbackTargets,
  expireCallbackTargets,
  recheckCallbackTargetsBefore,
} from '../../src/callbacks/callbackTargets.js';
import { callbackCursorsEnsure } from '../../src/callbacks/laneSql.js';
import {
  callbackTargetsExpire,
  callbackTargetsRecheck,
  EXPIRY_START,
  WINDOW_READ,
} from '../../src/callbacks/targetSql.js';
import type { Db, Queryable } from '../../src/db/db.js';
import { retentionSweep } from '../../src/retention/retention.js';
import { dayOf } from '../../src/util/time.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { TestClock } from '../helpers/clock.js';
import { planOf, scansOf, subplanNodes } from '../helpers/plans.js';
import { insertAccount, insertCallbackDelivery, insertCallbackEvent, insertMessage } from '../factories/rows.js';

const NOW = new Date('2026-03-10T09:00:00Z');
const MINUTE_MS = 60_000;

/** A database that counts the statements run on it: whether a target id came from a process's memory. */
function counted(db: Queryable): Queryable & { statements: number } {
  const wrapper = {
    statements: 0,
    query: <R>(sql: string, params?: readonly unknown[]) => {
      wrapper.statements++;
      return db.query<R>(sql, params);
    },
    exec: (sql: string) => db.exec(sql),
  };
  return wrapper;
}

/** Callback URLs as targets: the daily limit of new ones per account, what a process remembers, and expiry. */
describe.each(ENGINES)('callback targets (%s)', (engine) => {
  let testDb: TestDb;
  let db: Db;

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
  });
  afterAll(async () => testDb?.drop());

  const targetsOf = async (accountId: number): Promise<number> =>
    (
      await db.query<{ n: number }>('SELECT count(*)::int AS n FROM callback_targets WHERE account_id = $1', [
        accountId,
      ])
    )[0]!.n;

  it('creates exactly the daily limit of new URLs when batches of one account race', async () => {
    const { id: accountId } = await insertAccount(db);
    const { id: other } = await insertAccount(db);
    const limit = 120;
    const targets = new CallbackTargets(limit);
    // Ten batches of 50 new URLs each, all at once (on PostgreSQL, 8 transactions run side by side), and one of
    // another account, whose limit is its own.
    const urls = (b: number): string[] => Array.from({ length: 50 }, (_, i) => `https://hooks.example/${b}/${i}`);
    const batch = (account: number, b: number): Promise<Map<string, number>> =>
      db.transaction((tx) => targets.resolve(tx, account, urls(b), NOW));
    const [theirs, ...taken] = await Promise.all([
      batch(other, 0),
      ...Array.from({ length: 10 }, (_, b) => batch(accountId, b)),
    ]);
    expect(taken.reduce((sum, t) => sum + t.size, 0)).toBe(limit);
    expect(await targetsOf(accountId)).toBe(limit);
    expect(theirs.size).toBe(50);
    // Each batch had its first URLs created: the limit takes URLs in the order given.
    taken.forEach((t, b) => expect([...t.keys()].sort()).toEqual(urls(b).slice(0, t.size).sort()));
    // Known URLs still resolve the same day, new ones do not.
    const again = await db.transaction((tx) =>
      targets.resolve(tx, accountId, [...taken.flatMap((t) => [...t.keys()]), 'https://hooks.example/new'], NOW),
    );
    expect(again.size).toBe(limit);
  });

  /** The rows of a target: whether it exists, whether it is parked, and how many lane cursors it has. */
  const stateOf = async (id: number): Promise<{ exists: boolean; parked?: boolean; cursors: number }> => {
    const [target] = await db.query<{ parked: boolean }>('SELECT parked FROM callback_targets WHERE id = $1', [id]);
    const [cursors] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM callback_cursors WHERE target_id = $1',
      [id],
    );
    return target
      ? { exists: true, parked: target.parked, cursors: cursors!.n }
      : { exists: false, cursors: cursors!.n };
  };
  const allLanes = (targetId: number) => Array.from({ length: 16 }, (_, lane) => ({ targetId, lane }));

  it('expires URLs unused a day with nothing pending: their cursors go, then the URL once unreferenced', async () => {
    // A month before the other tests' URLs, which are not idle then.
    const start = new Date(NOW.getTime() - 30 * CALLBACK_TARGET_IDLE_MS);
    const clock = new TestClock(start);
    const { id: accountId } = await insertAccount(db);
    const targets = new CallbackTargets();
    const resolve = async (url: string): Promise<number> =>
      (await db.transaction((tx) => targets.resolve(tx, accountId, [url], clock.now()))).get(url)!;
    const url = (name: string) => `https://hooks.example/expiry/${name}`;
    const [unused, messaged, usedAgain, open, unsent] = [
      await resolve(url('unused')),
      await resolve(url('messaged')),
      await resolve(url('used-again')),
      await resolve(url('open')),
      await resolve(url('unsent')),
    ];
    for (const id of [unused, messaged, usedAgain, open, unsent]) await callbackCursorsEnsure(db, allLanes(id));
    // A message refers to `messaged` (it may still raise an event: a click, a read receipt); `open` has a delivery
    // waiting for its receiver; `unsent` has an event beyond its lane's cursor.
    await insertMessage(db, { accountId, callbackTargetId: messaged, createdAt: start });
    await insertCallbackDelivery(db, { accountId, targetId: open, lane: 4, createdAt: start });
    await insertCallbackEvent(db, { accountId, targetId: unsent, lane: 2 });
    // `used-again` is used again 23 hours later, from the database: the process remembered it for an hour only.
    clock.advance(23 * 60 * MINUTE_MS);
    expect(await resolve(url('used-again'))).toBe(usedAgain);

    // Just under a day: nothing goes.
    clock.set(new Date(start.getTime() + CALLBACK_TARGET_IDLE_MS - MINUTE_MS));
    expect(await expireCallbackTargets(db, clock.now())).toMatchObject({ parked: 0, deleted: 0 });
    clock.advance(2 * MINUTE_MS);
    expect(await expireCallbackTargets(db, clock.now())).toEqual({ examined: 4, parked: 1, deleted: 1 });
    expect(await stateOf(unused)).toEqual({ exists: false, cursors: 0 });
    // A sender that still watched a lane of it gets it back to let go of: no cursor is made for a URL that went.
    expect(await callbackCursorsEnsure(db, [{ targetId: unused, lane: 3 }])).toEqual([{ targetId: unused, lane: 3 }]);
    expect(await stateOf(unused)).toEqual({ exists: false, cursors: 0 });
    expect(await stateOf(messaged)).toEqual({ exists: true, parked: true, cursors: 0 });
    expect(await stateOf(usedAgain)).toEqual({ exists: true, parked: false, cursors: 16 });
    expect(await stateOf(open)).toEqual({ exists: true, parked: false, cursors: 16 });
    expect(await stateOf(unsent)).toEqual({ exists: true, parked: false, cursors: 16 });
    // A parked URL is not looked at again: a second run finds only those still pending.
    expect(await expireCallbackTargets(db, clock.now())).toEqual({ examined: 2, parked: 0, deleted: 0 });

    // Used again after its target went, a URL just gets a new one.
    const renewed = await resolve(url('unused'));
    expect(renewed).not.toBe(unused);
    expect(await stateOf(renewed)).toEqual({ exists: true, parked: false, cursors: 0 });
    // A parked URL used again keeps its target.
    expect(await resolve(url('messaged'))).toBe(messaged);

    // Once the retention deleted the message (and says so), the parked URL goes at the next run.
    await db.query('DELETE FROM messages WHERE account_id = $1 AND callback_target_id = $2', [accountId, messaged]);
    await callbackTargetsRecheck(db, [messaged]);
    clock.advance(CALLBACK_TARGET_IDLE_MS + MINUTE_MS);
    expect(await expireCallbackTargets(db, clock.now())).toMatchObject({ parked: 0, deleted: 3 });
    for (const id of [messaged, renewed, usedAgain]) expect(await stateOf(id)).toEqual({ exists: false, cursors: 0 });
  });

  it("reads an account's messages of a URL's time for one that names it; waits for the retention if many", async () => {
    // Twenty days before the other tests' URLs, ten after the first test's.
    const start = new Date(NOW.getTime() - 20 * CALLBACK_TARGET_IDLE_MS);
    const at = (ms: number) => new Date(start.getTime() + ms);
    const { id: accountId } = await insertAccount(db);
    const { id: busyAccountId } = await insertAccount(db);
    const targets = new CallbackTargets();
    const resolve = async (account: number, name: string): Promise<number> => {
      const url = `https://hooks.example/window/${name}`;
      return (await db.transaction((tx) => targets.resolve(tx, account, [url], start))).get(url)!;
    };
    const [few, late, many] = [
      await resolve(accountId, 'few'),
      await resolve(accountId, 'late'),
      await resolve(busyAccountId, 'many'),
    ];
    // The account's messages of the URLs' time, none with `few`: read, and `few` goes.
    for (let i = 0; i < 3; i++) await insertMessage(db, { accountId, createdAt: at(i * MINUTE_MS) });
    // A message made from a process's memory an hour after the URL's last use still keeps `late`.
    await insertMessage(db, { accountId, callbackTargetId: late, createdAt: at(CALLBACK_TARGET_TRUST_MS) });
    // More messages of the busy account in its URL's time than the expiry reads, none with it: taken as referred to.
    for (let i = 0; i <= WINDOW_READ; i++) await insertMessage(db, { accountId: busyAccountId, createdAt: at(i) });

    const idle = at(CALLBACK_TARGET_IDLE_MS + MINUTE_MS);
    await expireCallbackTargets(db, idle);
    expect(await stateOf(few)).toEqual({ exists: false, cursors: 0 });
    expect(await stateOf(late)).toEqual({ exists: true, parked: true, cursors: 0 });
    expect(await stateOf(many)).toEqual({ exists: true, parked: true, cursors: 0 });

    // The retention deleted the busy account's messages of that time, and says until when: parked URLs whose window
    // ended before then are looked at again. `many` goes; `late`, still referred to, is parked again.
    await db.query('DELETE FROM messages WHERE account_id = $1', [busyAccountId]);
    await recheckCallbackTargetsBefore(db, at(CALLBACK_TARGET_IDLE_MS - MINUTE_MS));
    expect(await stateOf(many)).toEqual({ exists: true, parked: true, cursors: 0 });
    await recheckCallbackTargetsBefore(db, at(2 * CALLBACK_TARGET_IDLE_MS + MINUTE_MS));
    expect(await stateOf(many)).toEqual({ exists: true, parked: false, cursors: 0 });
    expect(await stateOf(late)).toEqual({ exists: true, parked: false, cursors: 0 });
    await expireCallbackTargets(db, idle);
    expect(await stateOf(many)).toEqual({ exists: false, cursors: 0 });
    expect(await stateOf(late)).toEqual({ exists: true, parked: true, cursors: 0 });
  });

  it("is looked at again once the retention deleted the messages of a busy account's URL's time", async () => {
    // Forty days before the other tests' URLs: the retention below deletes nothing of theirs.
    const start = new Date(NOW.getTime() - 40 * CALLBACK_TARGET_IDLE_MS);
    const { id: accountId } = await insertAccount(db);
    const url = 'https://hooks.example/window/swept';
    const swept = (await db.transaction((tx) => new CallbackTargets().resolve(tx, accountId, [url], start))).get(url)!;
    // More of the account's finished messages in the URL's time than the expiry reads, none with it.
    for (let i = 0; i <= WINDOW_READ; i++)
      await insertMessage(db, { accountId, status: 'delivered', createdAt: new Date(start.getTime() + i) });
    const idle = new Date(start.getTime() + CALLBACK_TARGET_IDLE_MS + MINUTE_MS);
    await expireCallbackTargets(db, idle);
    expect(await stateOf(swept)).toEqual({ exists: true, parked: true, cursors: 0 });

    // The retention deletes them (their days rolled up): none named the URL, so only their time says it may go.
    const rolledUntil = dayOf(start.getTime() + 10 * CALLBACK_TARGET_IDLE_MS);
    await db.query('UPDATE stats_rollup_state SET rolled_until = $1', [rolledUntil]);
    await db.query(
      'INSERT INTO stats_rollup_state (rolled_until) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM stats_rollup_state)',
      [rolledUntil],
    );
    const cutoff = new Date(start.getTime() + 3 * CALLBACK_TARGET_IDLE_MS);
    expect((await retentionSweep(db, cutoff)).messages).toBe(WINDOW_READ + 1);
    expect(await stateOf(swept)).toEqual({ exists: true, parked: false, cursors: 0 });
    await expireCallbackTargets(db, idle);
    expect(await stateOf(swept)).toEqual({ exists: false, cursors: 0 });
  });

  it('reads at most a bounded number of messages per URL, through the primary key', async () => {
    const explain = (options: { partitions?: boolean } = {}) =>
      planOf(
        db,
        (explaining) =>
          // Explained, not run: the statement returns no row to read.
          callbackTargetsExpire(explaining, NOW, EXPIRY_START, 1000, CALLBACK_TARGET_IDLE_MS).catch(() => undefined),
        options,
      );
    const nodes = subplanNodes(await explain(), 'CTE settled').map((n) => [n.type, n.index].join(' ').trim());
    expect(nodes[nodes.indexOf('Limit') + 1]).toBe('Index Scan messages_pkey');
    // No partition of messages is read whole.
    const partitions = await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'messages'::regclass`,
    );
    const plan = await explain({ partitions: true });
    for (const { name } of partitions) expect(scansOf(plan, name)).not.toContain('Seq Scan');
  });

  it('uses an id from memory for an hour after the last recorded use, and keeps at most its bound', async () => {
    const { id: accountId } = await insertAccount(db);
    const targets = new CallbackTargets(0, 2);
    const at = (minutes: number) => new Date(NOW.getTime() + minutes * MINUTE_MS);
    /** Resolves `urls` at `minutes`; returns how many statements it took. */
    const statements = async (urls: string[], minutes: number): Promise<number> =>
      db.transaction(async (tx) => {
        const counting = counted(tx);
        const resolved = await targets.resolve(counting, accountId, urls, at(minutes));
        expect(resolved.size).toBe(urls.length);
        return counting.statements;
      });
    const [a, b, c] = ['a', 'b', 'c'].map((name) => `https://hooks.example/memory/${name}`) as [string, string, string];
    // New: created, not remembered (another transaction cannot see it until this one commits).
    expect(await statements([a], 0)).toBe(2);
    // Known to the database: marked used, and remembered until an hour after the use it had recorded (minute 0).
    expect(await statements([a], 1)).toBe(1);
    expect(await statements([a], 59)).toBe(0);
    expect(await statements([a], CALLBACK_TARGET_TRUST_MS / MINUTE_MS)).toBe(1);
    // Remembered again from the use the database had recorded at minute 1: until minute 61, so asked again.
    expect(await statements([a], 61)).toBe(1);
    expect(await statements([a], 62)).toBe(0);
    // At most two URLs: remembering b and c forgets a, the least recently used.
    expect(await statements([b, c], 62)).toBe(2);
    expect(await statements([b, c], 63)).toBe(1);
    expect(await statements([b, c], 64)).toBe(0);
    expect(await statements([a], 64)).toBe(1);
    expect(await statements([c], 64)).toBe(0);
    expect(await statements([b], 64)).toBe(1);
  });
});
