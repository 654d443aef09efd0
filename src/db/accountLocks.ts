import type { Queryable } from './db.js';

/**
 * What a per-account advisory lock guards: the first key of `pg_advisory_xact_lock(int, int)`, the account id being
 * the second. The two-key form is a key space of its own, apart from the one-key locks of migrations and the demo.
 */
const ACCOUNT_LOCK_CLASSES = {
  /** The account's traffic centers and inbound rules: their counts against the per-account ceilings. */
  inboundSettings: 7311_0001,
  /** The account's callback URLs: the count of those created today against the daily limit of new ones. */
  callbackUrls: 7311_0002,
  /** The account's verifiers: their count against the per-account ceiling. */
  verifiers: 7311_0003,
  // 7311_0004 was `guard`, a batch's turn for the fraud guard's counts: they are exact by the locks of their rows
  // now (guard/guard.ts guardAtStore, fraud/holds.ts pumpingCheck). Not to be given to anything else.
  /** The account's SMPP binds over every api process: their count against its smppBinds (smppServer/). */
  smppBinds: 7311_0005,
} as const;

/**
 * Serialises, until the transaction ends, the transactions of one account that take the same lock, so that a count
 * and the insert it allows are exact when requests race (a check without it lets N concurrent requests past the
 * last free place). Ids past 2^31 share a lock with a lower one: a needless wait, never a missed one.
 */
export async function lockAccount(
  tx: Queryable,
  what: keyof typeof ACCOUNT_LOCK_CLASSES,
  accountId: number,
): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [ACCOUNT_LOCK_CLASSES[what], accountId % 2 ** 31]);
}
