import type { Db } from '../db/db.js';
import type { Job, Quiet } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS } from '../util/time.js';
import type { CascadeProgress } from './cascades.js';
import { cascadesDeleteEnded, cascadesNextTimeout } from './cascadeSql.js';

const DELETE_BATCH = 1000;
/** Cascades moved on per transaction: a pass takes what is due in batches until none is left. */
const TIMEOUT_BATCH = 200;
/**
 * How often step timeouts are looked for. Timeouts are 30-900 s (DESIGN 16): a step moves on at most a second late,
 * and an idle pass is one index probe (cascades_step_timeout).
 */
export const STEP_TIMEOUT_EVERY_MS = 1000;

/**
 * The jobs of cascades: step timeouts every second (a step with a timeout gives way to the next when it passes:
 * verify/), and the retention (HERALD_RETENTION_DAYS) every 10 minutes: a cascade that ended longer ago than the
 * retention goes (its steps are messages, which the delivery retention deletes by their own age). A running
 * cascade stays: it ends with its last step's outcome at the latest.
 */
export function cascadeJobs(
  deps: { db: Db; clock: Clock; progress: CascadeProgress },
  options: { retentionDays?: number } = {},
): Job[] {
  const { retentionDays } = options;
  const timeouts: Job = {
    name: 'cascade-step-timeouts',
    everyMs: STEP_TIMEOUT_EVERY_MS,
    run: async (): Promise<Quiet | undefined> => {
      const now = deps.clock.now();
      // Most passes find none: one statement, no transaction, and the job rests until the next timeout.
      const next = await cascadesNextTimeout(deps.db);
      if (next === null || next > now) return { quietUntil: next?.getTime() ?? Infinity };
      while ((await deps.progress.timeoutsDue(deps.db, now, TIMEOUT_BATCH)) === TIMEOUT_BATCH);
      return undefined;
    },
  };
  if (retentionDays === undefined) return [timeouts];
  return [
    timeouts,
    {
      name: 'cascade-retention',
      everyMs: 600_000,
      run: async () => {
        const before = new Date(deps.clock.nowMs() - retentionDays * DAY_MS);
        while ((await cascadesDeleteEnded(deps.db, before, DELETE_BATCH)) === DELETE_BATCH);
      },
    },
  ];
}
