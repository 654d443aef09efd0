import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS } from '../util/time.js';
import { rollUpExpired } from './verificationStatistics.js';

const DELETE_BATCH = 1000;
/**
 * How long an expired code is kept: a day of checks answered EXPIRED rather than NOT_FOUND, far past the 10 minutes
 * the send limit looks back.
 */
export const EXPIRED_KEPT_MS = DAY_MS;

/** Deletes verifications a day after they expired, their figures rolled up for the statistics, every 10 minutes. */
export function verifyJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'verification-retention',
      everyMs: 600_000,
      run: async () => {
        const before = new Date(deps.clock.now().getTime() - EXPIRED_KEPT_MS);
        while ((await rollUpExpired(deps.db, before, DELETE_BATCH)) === DELETE_BATCH);
      },
    },
  ];
}
