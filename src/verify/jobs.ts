import type { Db } from '../db/db.js';
import type { Job, Quiet } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS } from '../util/time.js';
import { expireCodes } from './verifications.js';
import { rollUpExpired } from './verificationStatistics.js';
import { verificationNextExpiry } from './verificationSql.js';

const DELETE_BATCH = 1000;
/** Codes ended per transaction: a pass takes what is due in batches until none is left. */
const EXPIRY_BATCH = 200;
/**
 * How often expired codes are looked for. A code lives 60-3600 s (DESIGN 16): its workflow stops at most a second
 * after it expires, and an idle pass is one probe of verifications_pending_expiry.
 */
export const CODE_EXPIRY_EVERY_MS = 1000;
/**
 * How long an expired code is kept: a day of checks answered EXPIRED rather than NOT_FOUND, far past the 10 minutes
 * the send limit looks back.
 */
export const EXPIRED_KEPT_MS = DAY_MS;

/**
 * The jobs of verification: codes past their codeTtl ended every second (what is left of their workflows stopped),
 * and verifications deleted a day after they expired, their figures rolled up for the statistics, every 10 minutes.
 */
export function verifyJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'verification-expiry',
      everyMs: CODE_EXPIRY_EVERY_MS,
      run: async (): Promise<Quiet | undefined> => {
        const now = deps.clock.now();
        // Most passes find none: one statement, no transaction, and the job rests until the next expiry.
        const next = await verificationNextExpiry(deps.db);
        if (next === null || next > now) return { quietUntil: next?.getTime() ?? Infinity };
        while ((await expireCodes(deps.db, now, EXPIRY_BATCH)) === EXPIRY_BATCH);
        return undefined;
      },
    },
    {
      name: 'verification-retention',
      everyMs: 600_000,
      run: async () => {
        const before = new Date(deps.clock.nowMs() - EXPIRED_KEPT_MS);
        while ((await rollUpExpired(deps.db, before, DELETE_BATCH)) === DELETE_BATCH);
      },
    },
  ];
}
