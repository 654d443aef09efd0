import type { Queryable } from '../db/db.js';
import type { StepOutcome } from '../messages/index.js';

/**
 * What delivery tells the capability that runs cascades (cascades/, wired in main.ts): delivery records outcomes
 * and knows nothing of what a step's outcome means for its cascade.
 */
export interface OutcomeHooks {
  /**
   * Steps of cascades reached an outcome, in the transaction that recorded it (which holds their messages): the next
   * step is created, or the cascade ends, in that same transaction.
   */
  stepsEnded(tx: Queryable, steps: readonly StepOutcome[], now: Date): Promise<void>;
  /** That transaction committed: new steps may be claimed. */
  committed(): void;
}
