import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<number>();

/**
 * Runs `work` as the account's: the statements it sends, and those of everything it starts (promises, timers), are
 * the account's share of the embedded database's one connection (pgliteDb.ts). An AsyncLocalStorage rather than a
 * parameter: every route and every capability's SQL function would otherwise take the account only to pass it on
 * to the database, and a statement sent without it would quietly jump the queue.
 */
export function asAccount<T>(accountId: number, work: () => T): T {
  return scoped ? scope.run(accountId, work) : work();
}

/**
 * Whether work runs in the scope: only once the embedded database, its one reader, is open. An AsyncLocalStorage in
 * use puts a hook on every promise of the process on Node 20 (3 % of a process's CPU end to end, in the profile of
 * `BENCH_ONLY=e2e-callbacks`), which PostgreSQL would pay for nothing.
 */
let scoped = false;

/** Called by the embedded database when it opens (pgliteDb.ts). */
export function accountScopeUse(): void {
  scoped = true;
}

/** The account the current work runs for ({@link asAccount}), or undefined outside any. */
export function currentAccount(): number | undefined {
  return scope.getStore();
}
