import type { Db, Queryable } from '../db/db.js';

/** A lane of a callback URL (target). */
export interface Lane {
  readonly targetId: number;
  readonly lane: number;
}

/** Lanes with events beyond their cursor, whatever their age: what a sender takes on when it starts. */
export async function callbackLanesBehind(db: Queryable): Promise<Lane[]> {
  const rows = await db.query<{ target_id: number; lane: number }>(
    `SELECT c.target_id, c.lane FROM callback_cursors c
     WHERE EXISTS (
       SELECT 1 FROM callback_events e
       WHERE e.target_id = c.target_id AND e.lane = c.lane AND (e.txid, e.id) > (c.cursor_txid, c.cursor_event_id)
     )`,
  );
  return rows.map((r) => ({ targetId: r.target_id, lane: r.lane }));
}

/**
 * Gives lanes that have events a cursor where they have none (a new callback URL's lanes, or lanes whose cursors
 * expired while their URL was idle, see callbackTargetsExpire in targetSql.ts): where the expiry left the URL's
 * lanes (`lanes_from_txid`: after every event already sent), or at the start for a URL that never expired. The URL
 * is looked at by the expiry again. Returns the lanes of URLs that no longer exist (nothing to send them to).
 */
export async function callbackCursorsEnsure(db: Db, lanes: readonly Lane[]): Promise<Lane[]> {
  if (lanes.length === 0) return [];
  const targetIds = [...new Set(lanes.map((l) => l.targetId))];
  return db.transaction(async (tx) => {
    // The URLs first, held (KEY SHARE: batches that use them meanwhile are not waited for) until the cursors are
    // written: an expiry holding one is waited for, so that the cursors start where it left the lanes, and none
    // can start meanwhile.
    const held = await tx.query<{ id: number }>(
      `WITH held AS (
         SELECT id, parked FROM callback_targets WHERE id = ANY($1::bigint[]) ORDER BY id FOR KEY SHARE
       ),
       woken AS (UPDATE callback_targets t SET parked = false FROM held h WHERE t.id = h.id AND h.parked)
       SELECT id FROM held`,
      [targetIds],
    );
    await tx.query(
      `INSERT INTO callback_cursors (target_id, lane, cursor_txid, cursor_event_id)
       SELECT x.t, x.l, t.lanes_from_txid, 0
       FROM unnest($1::bigint[], $2::smallint[]) AS x(t, l) JOIN callback_targets t ON t.id = x.t
       ORDER BY x.t, x.l
       ON CONFLICT DO NOTHING`,
      [lanes.map((l) => l.targetId), lanes.map((l) => l.lane)],
    );
    const existing = new Set(held.map((h) => h.id));
    return lanes.filter((l) => !existing.has(l.targetId));
  });
}

/** A place in the outbox's (transaction id, event id) order: a look reads the events after it. */
export interface EventPosition {
  readonly txid: string;
  readonly id: number;
}

export const OUTBOX_START: EventPosition = { txid: '0', id: 0 };

/**
 * Where the last sender's look at new events stopped: every event up to it has a cursor for its lane, so a sender
 * that starts later reads the events after it (their lanes may have lost their cursors to expiry) besides the
 * lanes behind their cursor.
 */
export async function callbackScanLoad(db: Queryable): Promise<EventPosition> {
  const [row] = await db.query<{ txid: string; id: number }>(
    'SELECT scanned_txid::text AS txid, scanned_id AS id FROM callback_scan',
  );
  return row ?? OUTBOX_START;
}

export async function callbackScanSave(db: Queryable, at: EventPosition): Promise<void> {
  await db.query(
    `INSERT INTO callback_scan (id, scanned_txid, scanned_id) VALUES (true, $1::bigint, $2)
     ON CONFLICT (id) DO UPDATE SET scanned_txid = excluded.scanned_txid, scanned_id = excluded.scanned_id
     WHERE (callback_scan.scanned_txid, callback_scan.scanned_id) < (excluded.scanned_txid, excluded.scanned_id)`,
    [at.txid, at.id],
  );
}

/** Callback events not yet taken into a POST, and open POSTs (being sent or waiting for a retry). */
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
