import type { Queryable } from '../db/db.js';
import { destinationsDeleteOf } from './destinationSql.js';
import { messageKeysDeleteOf, messageKeysDeleteRange } from './messageKeys.js';
import {
  type MessageIdRange,
  type MessagePartition,
  destinationPartitionOf,
  messagePartitionIds,
  messagePartitions,
  PARTITION_LOCK_TIMEOUT,
} from './messagePartitions.js';

/*
 * The deletes of the retention (retention/, HERALD_RETENTION_DAYS) on the tables of messages/: finished messages by
 * rows or by whole week partitions, and old carrier submissions. One audience, one namespace: the index exports
 * this file as `messageRetention`.
 */

export type { MessagePartition } from './messagePartitions.js';

/** The week partition whose span holds `ms` inside it (not at its start), if any: row deletes stop at its start. */
export async function partitionCovering(db: Queryable, ms: number): Promise<MessagePartition | undefined> {
  return (await messagePartitions(db)).find((p) => p.fromMs !== null && p.fromMs < ms && (p.toMs ?? Infinity) > ms);
}

/**
 * The partitions (DEFAULT aside) whose every id is older than `beforeMs` and which hold no message with something
 * left to happen (waiting to be sent, or a lifetime running: the row deletes' rule in deleteFinished).
 * Reads each candidate until its first such message: once per retention run, on days older than the retention.
 */
export async function droppablePartitions(db: Queryable, beforeMs: number): Promise<MessagePartition[]> {
  const droppable: MessagePartition[] = [];
  for (const p of await messagePartitions(db)) {
    if (p.isDefault || p.toMs === null || p.toMs > beforeMs) continue;
    const [row] = await db.query<{ busy: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${p.name} WHERE status = 'sending' OR due_at IS NOT NULL) AS busy`,
    );
    if (!row!.busy) droppable.push(p);
  }
  return droppable;
}

/**
 * Drops a partition with its messages' keys and destinations (its partition of message_destinations), in the
 * caller's transaction, after `dependents` deleted what other tables hold of its messages (short links, conversions:
 * their owners' deletes). Waits at most {@link PARTITION_LOCK_TIMEOUT} for the locks on messages and
 * message_destinations (dropping a partition locks the table against every statement until the transaction ends),
 * then fails: the next retention run tries again. Returns the callback URLs (callback_targets ids) its messages
 * referred to.
 */
export async function dropPartition(
  tx: Queryable,
  p: MessagePartition,
  dependents: (ids: MessageIdRange) => Promise<void>,
): Promise<number[]> {
  const ids = messagePartitionIds(p);
  await dependents(ids);
  const targets = await tx.query<{ id: number }>(
    `SELECT DISTINCT callback_target_id AS id FROM ${p.name} WHERE callback_target_id IS NOT NULL`,
  );
  await messageKeysDeleteRange(tx, ids);
  await tx.exec(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
  await tx.exec(`DROP TABLE ${p.name}`);
  await tx.exec(`DROP TABLE IF EXISTS ${destinationPartitionOf(p.name)}`);
  return targets.map((r) => r.id);
}

/**
 * Deletes up to `limit` of an account's messages created before `beforeId` (a time-ordered uuid bound) that have
 * nothing left to happen (not waiting to be sent, no lifetime running), and returns their ids and callback URLs: the
 * caller deletes what other tables hold of them (short links, conversions) in the same transaction. Their keys
 * (messageKeys.ts) go with them.
 */
export async function deleteFinished(
  db: Queryable,
  accountId: number,
  beforeId: string,
  limit: number,
): Promise<{ id: string; callbackTargetId: number | null }[]> {
  const rows = await db.query<{ id: string; destination: string; callback_target_id: number | null }>(
    `WITH doomed AS (
       SELECT id FROM messages
       WHERE account_id = $1 AND id < $2::uuid AND status <> 'sending' AND due_at IS NULL
       ORDER BY id LIMIT $3
     )
     DELETE FROM messages m USING doomed d WHERE m.account_id = $1 AND m.id = d.id
     RETURNING m.id, m.destination, m.callback_target_id`,
    [accountId, beforeId, limit],
  );
  await messageKeysDeleteOf(
    db,
    rows.map((r) => r.id),
  );
  await destinationsDeleteOf(db, accountId, rows);
  return rows.map((r) => ({ id: r.id, callbackTargetId: r.callback_target_id }));
}

/** Deletes up to `limit` carrier submissions recorded before `before` (receipts for them would come far too late). */
export async function deleteSubmissionsBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM submissions WHERE (connector_id, carrier_id) IN (
       SELECT connector_id, carrier_id FROM submissions WHERE created_at < $1 LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
