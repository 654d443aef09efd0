import type { Queryable } from '../db/db.js';
import type { CarrierReceipt } from '../shared/receipts.js';
import { DAY_MS } from '../util/time.js';

/*
 * Final receipts per connector and minute (connector_outcomes, migration 0049): every worker process counts the
 * receipts it hears and adds its counts to the table with its connector status report; a route's quality floor
 * (routing/, DESIGN 21) reads the delivered share over its window from the table, the same figure in every process.
 */

const MINUTE_MS = 60_000;
/** Fewer final receipts than this over a window say nothing of a connector's delivery rate. */
export const QUALITY_MIN_RECEIPTS = 20;
/** Minutes kept: the longest quality window a route may have is a day. */
export const OUTCOMES_KEPT_MS = DAY_MS;

/** Counts receipts in memory until the next flush. */
export class ConnectorOutcomes {
  /** By `${connectorId}\u0000${minute}`. */
  private counts = new Map<string, { delivered: number; final: number }>();

  /** Counts the final receipts (delivered, undelivered, unsent; a read is not an outcome of sending). */
  count(receipts: readonly CarrierReceipt[]): void {
    for (const r of receipts) {
      if (r.state === 'read') continue;
      const key = `${r.connectorId}\u0000${Math.floor(r.at.getTime() / MINUTE_MS) * MINUTE_MS}`;
      const c = this.counts.get(key) ?? { delivered: 0, final: 0 };
      c.final++;
      if (r.state === 'delivered') c.delivered++;
      this.counts.set(key, c);
    }
  }

  /** Adds the counts so far to the table (one statement; none when nothing came) and forgets them. */
  async flush(db: Queryable): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = this.counts;
    this.counts = new Map();
    const rows = [...counts].map(([key, c]) => {
      const [connectorId, minute] = key.split('\u0000');
      return { connectorId: connectorId!, minute: new Date(Number(minute)), ...c };
    });
    try {
      await db.query(
        `INSERT INTO connector_outcomes AS o (connector_id, minute, delivered, final)
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[]) ORDER BY 1, 2
         ON CONFLICT (connector_id, minute) DO UPDATE
         SET delivered = o.delivered + excluded.delivered, final = o.final + excluded.final`,
        [
          rows.map((r) => r.connectorId),
          rows.map((r) => r.minute),
          rows.map((r) => r.delivered),
          rows.map((r) => r.final),
        ],
      );
    } catch (error) {
      // Kept for the next flush: counts are not lost to a database away for a moment.
      for (const [key, c] of counts) {
        const now = this.counts.get(key);
        this.counts.set(key, now ? { delivered: now.delivered + c.delivered, final: now.final + c.final } : c);
      }
      throw error;
    }
  }
}

/**
 * The delivered share of final receipts of every connector over each window (seconds) up to `now`, keyed
 * `${connectorId}|${windowSeconds}`; a connector with fewer than {@link QUALITY_MIN_RECEIPTS} over a window is left
 * out (its rate is unknown). One statement for all windows.
 */
export async function connectorDeliveryRates(
  db: Queryable,
  windows: readonly number[],
  now: Date,
): Promise<Map<string, number>> {
  if (windows.length === 0) return new Map();
  const rows = await db.query<{ connector_id: string; window_s: number; delivered: number; final: number }>(
    `SELECT o.connector_id, w.s AS window_s, sum(o.delivered)::int AS delivered, sum(o.final)::int AS final
     FROM unnest($1::int[]) AS w(s)
     JOIN connector_outcomes o ON o.minute > $2::timestamptz - make_interval(secs => w.s) - interval '1 minute'
     GROUP BY o.connector_id, w.s HAVING sum(o.final) >= $3`,
    [windows, now, QUALITY_MIN_RECEIPTS],
  );
  return new Map(rows.map((r) => [`${r.connector_id}|${r.window_s}`, r.delivered / r.final]));
}

/** Forgets the minutes older than a day. */
export async function connectorOutcomesForget(db: Queryable, now: Date): Promise<number> {
  const rows = await db.query('DELETE FROM connector_outcomes WHERE minute < $1 RETURNING 1', [
    new Date(now.getTime() - OUTCOMES_KEPT_MS),
  ]);
  return rows.length;
}
