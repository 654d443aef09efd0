import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS } from '../util/time.js';
import { callbackCursorsExpire } from './laneSql.js';

const BATCH = 10_000;

/**
 * Drops the lane cursors of callback URLs idle for a day, every 10 minutes (they come back with the URL's next event).
 */
export function callbackJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'expire-callback-cursors',
      everyMs: 600_000,
      run: async () => {
        const before = new Date(deps.clock.now().getTime() - DAY_MS);
        while ((await callbackCursorsExpire(deps.db, before, BATCH)) === BATCH);
      },
    },
  ];
}
