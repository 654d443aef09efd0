import { accountIds } from '../accounts/index.js';
import type { Db } from '../db/db.js';
import { messageOldestId } from '../messages/index.js';
import { uuidBound, uuidTime } from '../util/uuid7.js';
import { statsRollUpDay } from './statisticsSql.js';
import { DAY_MS, dayOf } from '../util/time.js';

/** Days newer than this are still changing a lot (lifetimes of 25 hours): they are counted live. */
const SETTLE_DAYS = 2;
const MAX_DAYS_PER_RUN = 31;

const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/**
 * Rolls statistics up: every UTC day older than two days is aggregated once into stats_daily (per account), and
 * days whose messages changed after their rollup (stats_dirty_days) are aggregated again. Idempotent, safe to run
 * in several workers (each day's work is one transaction; the state row serialises them).
 */
export async function rollUpStatistics(
  db: Db,
  now: Date,
  options: { frozenBefore?: Date } = {},
): Promise<{ days: number; redone: number }> {
  // Days older than the retention have lost messages: their rollup is final, a late change does not redo it.
  const frozenDay = options.frozenBefore ? dayOf(options.frozenBefore.getTime()) : undefined;
  const target = dayOf(now.getTime() - SETTLE_DAYS * DAY_MS);
  let days = 0;
  for (let i = 0; i < MAX_DAYS_PER_RUN; i++) {
    const done = await db.transaction(async (tx) => {
      const [state] = await tx.query<{ day: string }>(
        "SELECT to_char(rolled_until, 'YYYY-MM-DD') AS day FROM stats_rollup_state FOR UPDATE",
      );
      let rolledUntil = state?.day;
      const accounts = await accountIds(tx);
      if (rolledUntil === undefined) {
        // Start the day before the oldest message (by the primary key: ids are time-ordered).
        let oldest = now.getTime();
        for (const id of accounts) {
          const first = await messageOldestId(tx, id);
          if (first) oldest = Math.min(oldest, uuidTime(first));
        }
        rolledUntil = dayOf(Math.floor(oldest / DAY_MS) * DAY_MS - DAY_MS);
        await tx.query('INSERT INTO stats_rollup_state (rolled_until) VALUES ($1) ON CONFLICT (id) DO NOTHING', [
          rolledUntil,
        ]);
      }
      const next = dayOf(dayStart(rolledUntil) + DAY_MS);
      if (next > target) return false;
      const low = uuidBound(dayStart(next), 'low');
      const high = uuidBound(dayStart(next) + DAY_MS - 1, 'high');
      for (const id of accounts) await statsRollUpDay(tx, id, next, low, high);
      await tx.query('UPDATE stats_rollup_state SET rolled_until = $1', [next]);
      return true;
    });
    if (!done) break;
    days++;
  }
  const redone = await db.transaction(async (tx) => {
    const dirty = await tx.query<{ account_id: number; day: string }>(
      `DELETE FROM stats_dirty_days WHERE (account_id, day) IN (SELECT account_id, day FROM stats_dirty_days LIMIT 100)
       RETURNING account_id, to_char(day, 'YYYY-MM-DD') AS day`,
    );
    const redo = frozenDay === undefined ? dirty : dirty.filter((d) => d.day >= frozenDay);
    for (const d of redo)
      await statsRollUpDay(
        tx,
        d.account_id,
        d.day,
        uuidBound(dayStart(d.day), 'low'),
        uuidBound(dayStart(d.day) + DAY_MS - 1, 'high'),
      );
    return redo.length;
  });
  return { days, redone };
}
