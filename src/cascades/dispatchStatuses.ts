import type { Queryable } from '../db/db.js';

/**
 * What cascades ask of the capability that runs dispatches (dispatches/, `dispatchStatuses` in its dispatchSql.ts,
 * passed in by main.ts): a dispatch's cascade takes its next step only as its dispatch allows. dispatches/ starts
 * cascades and imports cascades/, never the other way round.
 */
export interface DispatchStatuses {
  /**
   * The stored statuses of dispatches, read FOR SHARE in the caller's transaction, which records the outcomes of
   * steps of their cascades: a pause or stop waits for it, or it sees the pause or stop.
   */
  readShared(
    tx: Queryable,
    keys: readonly { accountId: number; id: string }[],
  ): Promise<Map<string, 'initiated' | 'started' | 'paused' | 'stopped'>>;
}
