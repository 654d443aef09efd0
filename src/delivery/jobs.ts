import type { Db } from '../db/db.js';
import {
  DELIVERY_ERRORS,
  messageApplyOrphanReceipts,
  messageExpireDue,
  messageNextExpiry,
  orphanReceiptsAny,
  type QueueFloor,
} from '../messages/index.js';
import { type OutcomeHooks, withStepOutcomes } from './outcomeHooks.js';
import type { Job, Quiet } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';

/** Orphan receipts are matched again for an hour; a submission recorded later than that is not coming. */
const ORPHAN_LIFETIME_MS = 3600_000;
const EXPIRE_BATCH = 1000;

/**
 * Delivery's periodic jobs: lifetimes that have run out (sent -> undelivered, delivered -> unread) every second,
 * orphan receipts whose submission has since been recorded every 5 seconds.
 */
export function deliveryJobs(deps: { db: Db; clock: Clock; hooks?: OutcomeHooks; floor: QueueFloor }): Job[] {
  const { db, clock, hooks, floor } = deps;
  return [
    {
      name: 'expire-lifetimes',
      everyMs: 1000,
      run: async (): Promise<Quiet | number> => {
        const now = clock.now();
        const from = await floor.current(db);
        const next = await messageNextExpiry(db, from);
        if (next === null || next > now) return { quietUntil: next?.getTime() ?? Infinity };
        return expireLifetimes(db, now, hooks, from);
      },
    },
    {
      name: 'match-orphan-receipts',
      everyMs: 5000,
      // Taken and applied in one transaction: a crash between the two would lose them.
      run: async () => {
        // Most of the time there are none: one statement, no transaction, and rest while nothing is written.
        if (!(await orphanReceiptsAny(db))) return { quietUntil: Infinity };
        await withStepOutcomes(
          db,
          hooks,
          () => clock.now(),
          (tx, ended) => messageApplyOrphanReceipts(tx, new Date(clock.nowMs() - ORPHAN_LIFETIME_MS), ended),
        );
      },
    },
  ];
}

/**
 * Ends the lifetimes that have run out by `now` (of messages from the queue's `floor` on); returns how many messages
 * reached their end. Each batch is one transaction with what the steps of cascades among them lead to (the next
 * step, or the cascade's end).
 */
export async function expireLifetimes(db: Db, now: Date, hooks?: OutcomeHooks, floor?: string): Promise<number> {
  let expired = 0;
  const errors = { noReceipt: DELIVERY_ERRORS.noReceipt };
  for (;;) {
    const rows = await withStepOutcomes(
      db,
      hooks,
      () => now,
      (tx, ended) => messageExpireDue(tx, now, EXPIRE_BATCH, errors, ended, floor),
    );
    expired += rows.length;
    if (rows.length < EXPIRE_BATCH) return expired;
  }
}
