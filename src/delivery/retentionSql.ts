import { inDelivery } from '../callbacks/index.js';
import type { Queryable } from '../db/db.js';

/** What a batch of deletes removed: how many rows, and the callback targets (URLs) they referred to. */
export interface DeletedBatch {
  readonly deleted: number;
  readonly callbackTargetIds: readonly number[];
}

const deletedBatch = (rows: { target_id: number | null }[]): DeletedBatch => ({
  deleted: rows.length,
  callbackTargetIds: [...new Set(rows.flatMap((r) => (r.target_id === null ? [] : [r.target_id])))],
});

/**
 * Deletes up to `limit` of an account's messages created before `beforeId` (a time-ordered uuid bound) that have
 * nothing left to happen (not waiting to be sent, no lifetime running), with their short links and conversions.
 * Returns how many messages went, and their callback URLs.
 */
export async function retentionDeleteMessages(
  db: Queryable,
  accountId: number,
  beforeId: string,
  limit: number,
): Promise<DeletedBatch> {
  const rows = await db.query<{ target_id: number | null }>(
    `WITH doomed AS (
       SELECT id FROM messages
       WHERE account_id = $1 AND id < $2::uuid AND status <> 'sending' AND due_at IS NULL
       ORDER BY id LIMIT $3
     ), links AS (
       DELETE FROM short_links s USING doomed d WHERE s.account_id = $1 AND s.message_id = d.id
     ), conversions AS (
       DELETE FROM flashcall_conversions c USING doomed d WHERE c.account_id = $1 AND c.message_id = d.id
     )
     DELETE FROM messages m USING doomed d WHERE m.account_id = $1 AND m.id = d.id
     RETURNING m.callback_target_id AS target_id`,
    [accountId, beforeId, limit],
  );
  return deletedBatch(rows);
}

/** Deletes up to `limit` carrier submissions recorded before `before` (receipts for them would come far too late). */
export async function retentionDeleteSubmissions(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM submissions WHERE (connector_id, carrier_id) IN (
       SELECT connector_id, carrier_id FROM submissions WHERE created_at < $1 LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/**
 * Deletes up to `limit` of an account's finished callback deliveries (delivered, or failed and not replayed)
 * created and finished before `before`, with their attempts and the events they carried. Returns how many went,
 * and their callback URLs.
 */
export async function retentionDeleteCallbacks(
  db: Queryable,
  accountId: number,
  before: Date,
  limit: number,
): Promise<DeletedBatch> {
  const rows = await db.query<{ target_id: number }>(
    `WITH doomed AS (
       SELECT id, target_id, lane, after_txid, after_event_id, last_txid, last_event_id, only_messages, excluded_messages
       FROM callback_deliveries
       WHERE account_id = $1 AND state IN ('delivered', 'failed') AND created_at < $2 AND finished_at < $2
       LIMIT $3
     ), events AS (
       -- Only the delivery's own events: another delivery of the same range may hold the rest (callbacks/deliverySql.ts).
       DELETE FROM callback_events e USING doomed d WHERE ${inDelivery('e', 'd')}
     ), attempts AS (
       DELETE FROM callback_attempts a USING doomed d WHERE a.delivery_id = d.id
     )
     DELETE FROM callback_deliveries c USING doomed d WHERE c.id = d.id
     RETURNING c.target_id`,
    [accountId, before, limit],
  );
  return deletedBatch(rows);
}
