import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { hourOf, pumpingCountsDeleteBefore } from './fraudSql.js';

/** How far back the baseline and the proofs read (see pumpingCountBatch), and a day more. */
const COUNTS_KEPT_MS = 8 * 24 * 3_600_000;

/** Hourly: the pumping counts older than the baseline reads are deleted. */
export function fraudJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'pumping-counts-expiry',
      everyMs: 3_600_000,
      run: async () => {
        await pumpingCountsDeleteBefore(deps.db, hourOf(new Date(deps.clock.nowMs() - COUNTS_KEPT_MS)));
      },
    },
  ];
}
