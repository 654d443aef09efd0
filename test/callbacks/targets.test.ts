import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackTargets } from '../../src/callbacks/callbackTargets.js';
import type { Db } from '../../src/db/db.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { insertAccount } from '../factories/rows.js';

const NOW = new Date('2026-03-10T09:00:00Z');

/** Callback URLs as targets: the daily limit of new ones per account. */
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
});
