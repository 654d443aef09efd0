import type { Db, Queryable } from '../../src/db/db.js';

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

/**
 * Runs `fn` while another transaction holds the rows `lockSql` selects `FOR UPDATE` (PostgreSQL: PGlite has one
 * connection, so nothing else could run meanwhile), then ends that transaction. Returns what `fn` returned.
 */
export async function whileLocked<T>(db: Db, lockSql: string, params: readonly unknown[], fn: () => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(lockSql, params);
    return fn();
  });
}
