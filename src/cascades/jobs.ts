import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS } from '../util/time.js';
import { cascadesDeleteEnded } from './cascadeSql.js';

const DELETE_BATCH = 1000;

/**
 * The retention of cascades (HERALD_RETENTION_DAYS), every 10 minutes: a cascade that ended longer ago than the
 * retention goes (its steps are messages, which the delivery retention deletes by their own age). A running cascade
 * stays: it ends with its last step's outcome at the latest.
 */
export function cascadeJobs(deps: { db: Db; clock: Clock }, options: { retentionDays?: number } = {}): Job[] {
  const { retentionDays } = options;
  if (retentionDays === undefined) return [];
  return [
    {
      name: 'cascade-retention',
      everyMs: 600_000,
      run: async () => {
        const before = new Date(deps.clock.now().getTime() - retentionDays * DAY_MS);
        while ((await cascadesDeleteEnded(deps.db, before, DELETE_BATCH)) === DELETE_BATCH);
      },
    },
  ];
}
