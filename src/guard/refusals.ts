import { afterCommit } from '../db/afterCommit.js';
import type { Queryable } from '../db/db.js';
import type { RefusalCounter } from './guard.js';
import { type Refusal, refusalCountAdd } from './refusalSql.js';

/**
 * Counts refusals of an account's messages that are never stored as messages (items refused at generation, DESIGN
 * 20): in its statistics by refusal code (one statement) and in herald_refusals_total once they are committed. For any
 * part that refuses.
 */
export async function countRefusals(
  db: Queryable,
  counter: RefusalCounter,
  accountId: number,
  refusals: readonly Refusal[],
  now: Date,
): Promise<void> {
  if (refusals.length === 0) return;
  await refusalCountAdd(db, accountId, refusals, now);
  // Counted once the statistics' rows are: a send rolled back after this (a later statement failed, a lost race of
  // its idempotency key, its COMMIT refused) and sent again counted its refusals twice in the metric, once in the
  // statistics.
  afterCommit(db, () => {
    for (const r of refusals) counter.inc({ code: String(r.code), outcome: r.monitored ? 'monitored' : 'refused' });
  });
}
