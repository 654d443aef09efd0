import type { Db, Queryable } from '../db/db.js';
import type { StepOutcome } from '../messages/index.js';

/**
 * What delivery tells the capability that runs cascades (cascades/, wired in main.ts): delivery records outcomes
 * and knows nothing of what a step's outcome means for its cascade.
 */
export interface OutcomeHooks {
  /**
   * Steps of cascades reached an outcome, in the transaction that recorded it (which holds their messages): the next
   * step is created, or the cascade ends, in that same transaction. The caller settles the answer: `committed()`
   * once the transaction committed, `close()` in any case (after a rollback it gives back what was reserved).
   */
  stepsEnded(tx: Queryable, steps: readonly StepOutcome[], now: Date): Promise<StepsCreated>;
}

/** The steps a transaction created, to be handed over once it commits. */
export interface StepsCreated {
  /** The transaction committed: the new steps go to this process's submitter, or are left for a claim. */
  committed(): void;
  /** Gives back the submitter's places taken for steps not handed over; does nothing after `committed()`. */
  close(): void;
}

/** Nothing created, nothing to settle. */
export const NO_STEPS_CREATED: StepsCreated = { committed: () => undefined, close: () => undefined };

/**
 * Runs `work` in a transaction of `db`, in which the outcomes it collects in `ended` are handed to `hooks` before
 * the commit, and settles what they created after it.
 */
export async function withStepOutcomes<T>(
  db: Db,
  hooks: OutcomeHooks | undefined,
  now: () => Date,
  work: (tx: Queryable, ended: StepOutcome[]) => Promise<T>,
): Promise<T> {
  let created = NO_STEPS_CREATED;
  try {
    const result = await db.transaction(async (tx) => {
      const ended: StepOutcome[] = [];
      const value = await work(tx, ended);
      if (ended.length > 0 && hooks) created = await hooks.stepsEnded(tx, ended, now());
      return value;
    });
    created.committed();
    return result;
  } finally {
    created.close();
  }
}
