import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS } from '../util/time.js';
import { rollUpStatistics } from './rollup.js';

/**
 * Rolls up the days that changed, every minute. Days older than the retention are final: their messages may be
 * gone, so their rollup is never redone.
 */
export function statisticsJobs(deps: { db: Db; clock: Clock }, options: { retentionDays?: number } = {}): Job[] {
  return [
    {
      name: 'roll-up-statistics',
      everyMs: 60_000,
      run: () => {
        const now = deps.clock.now();
        const frozenBefore =
          options.retentionDays === undefined ? undefined : new Date(now.getTime() - options.retentionDays * DAY_MS);
        return rollUpStatistics(deps.db, now, frozenBefore === undefined ? {} : { frozenBefore });
      },
    },
  ];
}
