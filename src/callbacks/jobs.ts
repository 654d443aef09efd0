import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { expireCallbackTargets } from './callbackTargets.js';

/**
 * Expires idle callback URLs every 10 minutes: a URL unused for a day with nothing left to send loses its lanes'
 * cursors (they come back with its next event), and goes once nothing refers to it (see expireCallbackTargets).
 */
export function callbackJobs(deps: { db: Db; clock: Clock; log: Logger }): Job[] {
  return [
    {
      name: 'expire-callback-targets',
      everyMs: 600_000,
      run: async () => {
        const result = await expireCallbackTargets(deps.db, deps.clock.now());
        if (result.parked + result.deleted > 0) deps.log.info(result, 'callback targets: idle ones expired');
      },
    },
  ];
}
