import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../src/db/db.js';
import { ENGINES, openTestDb, type Engine, type TestDb } from './engines.js';

class RollBack extends Error {}

/**
 * Runs `fn` in a transaction that is rolled back afterwards, whatever it did: a test that owns its rows this way
 * leaves nothing behind for the next one, without a database of its own. Returns what `fn` returned.
 */
export async function rolledBack<T>(db: Db, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  let result: T;
  try {
    await db.transaction(async (tx) => {
      result = await fn(tx);
      throw new RollBack();
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  }
  return result!;
}

/** Defines a test that runs in a transaction rolled back at its end. */
export type OwnTest = (name: string, fn: (tx: Queryable) => Promise<void>) => void;

/**
 * Opens a fresh database on `engine` for the tests of the enclosing describe block, and returns how to define a test
 * there that owns its rows: it runs in a transaction rolled back at its end, so that no test sees another's rows.
 */
export function ownRowsTests(engine: Engine): OwnTest {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(engine);
  });
  afterAll(async () => testDb?.drop());
  return (name, fn) => {
    it(name, () => rolledBack(testDb.db, fn));
  };
}

/**
 * Defines, on PostgreSQL only, a test that a claim skips a row another transaction holds instead of waiting for it
 * (FOR UPDATE SKIP LOCKED: workers share the work), and takes it once it is free. PGlite has one connection, so no
 * other transaction can hold a row there meanwhile. `insertDue` writes a row of `table` that `claim` takes, and
 * returns its id; `claim` returns the ids it took, in order.
 */
export function describeClaimSkipsLocked(
  title: string,
  claim: { table: string; insertDue(db: Db): Promise<string>; claim(db: Db): Promise<string[]> },
): void {
  describe.runIf(ENGINES.includes('postgres'))(title, () => {
    let testDb: TestDb;
    beforeAll(async () => {
      testDb = await openTestDb('postgres');
    });
    afterAll(async () => testDb?.drop());

    it('claims the others at once, and the held one once it is free', async () => {
      const db = testDb.db;
      const [held, free] = [await claim.insertDue(db), await claim.insertDue(db)];
      const whileHeld = await db.transaction(async (tx) => {
        await tx.query(`SELECT 1 FROM ${claim.table} WHERE id = $1 FOR UPDATE`, [held]);
        return claim.claim(db);
      });
      expect(whileHeld).toEqual([free]);
      expect(await claim.claim(db)).toEqual([held]);
    });
  });
}
