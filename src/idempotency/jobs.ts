import type { Db } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';
import { idempotencyPurge } from './idempotencySql.js';

/** Forgets idempotency records older than their window, every minute, in bounded batches. */
export function idempotencyJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'purge-idempotency-keys',
      everyMs: 60_000,
      run: () => idempotencyPurge(deps.db, new Date(deps.clock.nowMs() - IDEMPOTENCY_WINDOW_MS), 10_000),
    },
  ];
}
