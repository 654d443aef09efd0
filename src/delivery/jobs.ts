import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import {
  DELIVERY_ERRORS,
  messageExpireDue,
  messageNextExpiry,
  orphanReceiptsAny,
  orphanReceiptsTakeMatched,
} from '../messages/index.js';
import { type OutcomeHooks, withStepOutcomes } from './outcomeHooks.js';
import type { Job, Quiet } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { applyReceipts } from './receipts.js';
import { retentionCutoff, retentionSweep } from './retention.js';

/** Orphan receipts are matched again for an hour; a submission recorded later than that is not coming. */
const ORPHAN_LIFETIME_MS = 3600_000;
const EXPIRE_BATCH = 1000;

export interface DeliveryJobOptions {
  /** HERALD_RETENTION_DAYS: what is older and finished is deleted (unset: everything is kept). */
  readonly retentionDays?: number;
}

/**
 * Delivery's periodic jobs: lifetimes that have run out (sent -> undelivered, delivered -> unread) every second,
 * orphan receipts whose submission has since been recorded every 5 seconds, the retention every 10 minutes.
 */
export function deliveryJobs(
  deps: { db: Db; clock: Clock; log: Logger; hooks?: OutcomeHooks },
  options: DeliveryJobOptions = {},
): Job[] {
  const { db, clock, log, hooks } = deps;
  return [
    {
      name: 'expire-lifetimes',
      everyMs: 1000,
      run: async (): Promise<Quiet | number> => {
        const now = clock.now();
        const next = await messageNextExpiry(db);
        if (next === null || next > now) return { quietUntil: next?.getTime() ?? Infinity };
        return expireLifetimes(db, now, hooks);
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
          async (tx, ended) => {
            const matched = await orphanReceiptsTakeMatched(tx, new Date(clock.now().getTime() - ORPHAN_LIFETIME_MS));
            if (matched.length > 0) await applyReceipts(tx, matched, ended);
          },
        );
      },
    },
    {
      name: 'retention',
      everyMs: 600_000,
      run: async () => {
        if (options.retentionDays === undefined) return;
        const result = await retentionSweep(db, retentionCutoff(clock.now(), options.retentionDays));
        if (result.partitions + result.messages + result.submissions + result.callbackDeliveries > 0)
          log.info(result, 'retention: old records deleted');
      },
    },
  ];
}

/**
 * Ends the lifetimes that have run out by `now`; returns how many messages reached their end. Each batch is one
 * transaction with what the steps of cascades among them lead to (the next step, or the cascade's end).
 */
export async function expireLifetimes(db: Db, now: Date, hooks?: OutcomeHooks): Promise<number> {
  let expired = 0;
  const errors = { noReceipt: DELIVERY_ERRORS.noReceipt };
  for (;;) {
    const rows = await withStepOutcomes(
      db,
      hooks,
      () => now,
      (tx, ended) => messageExpireDue(tx, now, EXPIRE_BATCH, errors, ended),
    );
    expired += rows.length;
    if (rows.length < EXPIRE_BATCH) return expired;
  }
}
