import type { Queryable } from '../db/db.js';

export interface QueueFigure {
  /** waiting (to be sent), sent (waiting for a receipt), delivered (waiting for a read). */
  state: string;
  messages: number;
  /** Seconds since the oldest of them became due (waiting) or entered the state (the others); 0 when none. */
  oldest_age_s: number;
}

/**
 * The delivery queue by state, read through the partial indexes that hold only waiting messages, so a scrape
 * costs the size of the queue, not of the messages table.
 */
export async function queueFigures(db: Queryable, now: Date): Promise<QueueFigure[]> {
  return db.query<QueueFigure>(
    `SELECT 'waiting' AS state, count(*)::int AS messages,
       coalesce(extract(epoch FROM $1::timestamptz - min(due_at) FILTER (WHERE due_at <= $1)), 0)::float8 AS oldest_age_s
     FROM messages WHERE status = 'sending'
     UNION ALL
     SELECT status, count(*)::int, coalesce(extract(epoch FROM $1::timestamptz - min(status_at)), 0)::float8
     FROM messages WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL
     GROUP BY status`,
    [now],
  );
}

/** Callback events not yet taken into a delivery, and open deliveries (being sent or waiting for a retry). */
export async function callbackBacklog(
  db: Queryable,
): Promise<{ events: number; open_deliveries: number; open_events: number }> {
  const [row] = await db.query<{ events: number; open_deliveries: number; open_events: number }>(
    `SELECT
       (SELECT count(*)::int FROM callback_events e
        LEFT JOIN callback_cursors c ON c.target_id = e.target_id AND c.lane = e.lane
        WHERE c.target_id IS NULL OR (e.txid, e.id) > (c.cursor_txid, c.cursor_event_id)) AS events,
       (SELECT count(*)::int FROM callback_deliveries WHERE state = 'open') AS open_deliveries,
       (SELECT coalesce(sum(events), 0)::int FROM callback_deliveries WHERE state = 'open') AS open_events`,
  );
  return row!;
}
