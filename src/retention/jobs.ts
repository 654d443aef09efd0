import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { retentionCutoff, retentionSweep } from './retention.js';

/**
 * The retention job (HERALD_RETENTION_DAYS), every 10 minutes: what is older and finished is deleted. None when the
 * setting is unset: everything is kept.
 */
export function retentionJobs(deps: { db: Db; clock: Clock; log: Logger }, retentionDays: number | undefined): Job[] {
  if (retentionDays === undefined) return [];
  const { db, clock, log } = deps;
  return [
    {
      name: 'retention',
      everyMs: 600_000,
      run: async () => {
        const result = await retentionSweep(db, retentionCutoff(clock.now(), retentionDays));
        if (result.partitions + result.messages + result.submissions + result.callbackPosts > 0)
          log.info(result, 'retention: old records deleted');
      },
    },
  ];
}
