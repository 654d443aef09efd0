import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<number>();

/**
 * Runs `work` as the account's: the statements it sends, and those of everything it starts (promises, timers), are
 * the account's share of the embedded database's one connection (pgliteDb.ts). An AsyncLocalStorage rather than a
 * parameter: every route and every capability's SQL function would otherwise take the account only to pass it on
 * to the database, and a statement sent without it would quietly jump the queue.
 */
export function asAccount<T>(accountId: number, work: () => T): T {
  return scope.run(accountId, work);
}

/** The account the current work runs for ({@link asAccount}), or undefined outside any. */
export function currentAccount(): number | undefined {
  return scope.getStore();
}
