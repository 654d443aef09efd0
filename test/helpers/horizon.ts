import type { Db } from '../../src/db/db.js';

/**
 * How long a test waits for its events to fall below PostgreSQL's horizon (the oldest transaction still running
 * anywhere on the server, which the callback outbox forms nothing above). The suite shares one server: another file's
 * writing transaction holds every file's events back while it runs, and on the loaded machine one held them for more
 * than 20 s (waitFor's default) at least once in a full run.
 */
export const HORIZON_WAIT_MS = 90_000;

/** The timeout of a test that waits on the horizon, perhaps several times. */
export const HORIZON_TEST_MS = 3 * HORIZON_WAIT_MS;

/** waitFor's options for a wait on the horizon: longer, and naming on failure the transactions that held it back. */
export const horizonWait = (db: Db) => ({ timeoutMs: HORIZON_WAIT_MS, describe: () => horizonHolders(db) });

/** The oldest writing transactions of the server, with what they run: what a wait for the horizon waits on. */
export async function horizonHolders(db: Db): Promise<string> {
  try {
    const rows = await db.query<{ pid: number; xid: string; age_s: number; state: string; query: string }>(
      `SELECT pid, backend_xid::text AS xid, extract(epoch FROM now() - xact_start)::float8 AS age_s, state,
         left(query, 200) AS query
       FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY age(backend_xid) DESC LIMIT 5`,
    );
    return `(horizon held by: ${JSON.stringify(rows)})`;
  } catch (error) {
    // PGlite has one connection: no other transaction can hold it back.
    return `(horizon holders not readable: ${String(error)})`;
  }
}
