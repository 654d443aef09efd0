import { isDb, type Queryable } from './db.js';

/** What waits for each open transaction's COMMIT; a transaction rolled back is forgotten with what it held. */
const waiting = new WeakMap<Queryable, (() => void)[]>();

/**
 * Runs `fn` once what was written through `db` is committed: at once outside a transaction (each statement commits
 * by itself), after COMMIT inside one, and never when it rolls back or its COMMIT fails. For what must not count a
 * write that may yet be undone (a metric).
 */
export function afterCommit(db: Queryable, fn: () => void): void {
  if (isDb(db)) {
    fn();
    return;
  }
  const list = waiting.get(db);
  if (list) list.push(fn);
  else waiting.set(db, [fn]);
}

/**
 * Called by the engines (postgresDb.ts, pgliteDb.ts) once the transaction `tx` committed. Never throws: the caller
 * must not be told that a committed transaction failed; a function that throws is reported as a process warning,
 * and the others still run.
 */
export function runAfterCommit(tx: Queryable): void {
  const list = waiting.get(tx);
  if (!list) return;
  waiting.delete(tx);
  for (const fn of list) {
    try {
      fn();
    } catch (error) {
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), 'AfterCommitError');
    }
  }
}
