import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { floodForget } from './floodSql.js';
import { spendDayOf } from './guard.js';
import { spendForget } from './spendSql.js';

const HOUR_MS = 3_600_000;

/**
 * Every 10 minutes: the flood filter forgets messages older than its sliding hour, and the daily spend the days
 * before yesterday (its day is the zone's: yesterday's may still be today somewhere it is read). The flood table
 * holds at most 70 minutes of accepted messages.
 */
export function guardJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'guard-forget',
      everyMs: 600_000,
      run: async () => {
        const now = deps.clock.now();
        await floodForget(deps.db, new Date(now.getTime() - HOUR_MS));
        await spendForget(deps.db, spendDayOf(new Date(now.getTime() - 24 * HOUR_MS)));
      },
    },
  ];
}
