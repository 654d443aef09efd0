import type { Queryable } from '../db/db.js';
import { inPost } from './postRange.js';

/**
 * Deletes up to `limit` of an account's finished callback POSTs (delivered, or failed and not replayed)
 * created and finished before `before`, with their attempts and the events they carried. Returns how many went,
 * and their callback URLs.
 */
export async function callbackPostsDeleteFinished(
  db: Queryable,
  accountId: number,
  before: Date,
  limit: number,
): Promise<{ deleted: number; callbackTargetIds: number[] }> {
  const rows = await db.query<{ target_id: number }>(
    `WITH doomed AS (
       SELECT id, target_id, lane, after_txid, after_event_id, last_txid, last_event_id, only_messages,
         excluded_messages
       FROM callback_deliveries
       WHERE account_id = $1 AND state IN ('delivered', 'failed') AND created_at < $2 AND finished_at < $2
       LIMIT $3
     ), events AS (
       -- Only the POST's own events: another POST of the same range may hold the rest (postSql.ts).
       DELETE FROM callback_events e USING doomed d WHERE ${inPost('e', 'd')}
     ), attempts AS (
       DELETE FROM callback_attempts a USING doomed d WHERE a.delivery_id = d.id
     )
     DELETE FROM callback_deliveries c USING doomed d WHERE c.id = d.id
     RETURNING c.target_id`,
    [accountId, before, limit],
  );
  return { deleted: rows.length, callbackTargetIds: [...new Set(rows.map((r) => r.target_id))] };
}
