import type { Queryable } from '../db/db.js';

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
