import type { Queryable } from '../db/db.js';
import type { MessageIdRange } from './messagePartitions.js';

/*
 * message_keys: what must exist once per account among messages that a unique index of the partitioned messages
 * table cannot promise (it would have to hold the partition key, the id, which differs each time): an inbound
 * message's provider id (`inbound <connector:providerId>`) and a cascade step (`cascade <cascade id> <step>`). A key
 * is written in the statement that inserts its message and deleted with it (the retention's row deletes and
 * partition drops).
 */

/**
 * A CTE `key` that takes the inbound key of `providerId` for the message `messageId`, and yields `message_id` only
 * when the key was free: a concurrent insert of the same key waits for the first transaction, then finds it taken.
 */
export function inboundKeyCte(accountId: string, providerId: string, messageId: string): string {
  return `key AS (
       INSERT INTO message_keys (account_id, key, message_id)
       VALUES (${accountId}, 'inbound ' || ${providerId}, ${messageId})
       ON CONFLICT DO NOTHING RETURNING message_id
     )`;
}

/**
 * A CTE that takes the key of each cascade step among the rows of `source` (account_id, id, cascade_id,
 * cascade_step): a step created twice fails its statement with a unique violation, as the unique index did.
 */
export function cascadeStepKeysCte(source: string): string {
  return `cascade_step_keys AS (
       INSERT INTO message_keys (account_id, key, message_id)
       SELECT s.account_id, 'cascade ' || s.cascade_id || ' ' || s.cascade_step, s.id
       FROM ${source} s WHERE s.cascade_id IS NOT NULL
     )`;
}

/** Deletes the keys of the messages `messageIds` (the retention deleted them). */
export async function messageKeysDeleteOf(db: Queryable, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length === 0) return;
  await db.query('DELETE FROM message_keys WHERE message_id = ANY($1::uuid[])', [messageIds]);
}

/** Deletes the keys of the messages with ids in `ids` (a partition that goes). */
export async function messageKeysDeleteRange(db: Queryable, ids: MessageIdRange): Promise<void> {
  await db.query('DELETE FROM message_keys WHERE message_id >= $1 AND message_id < $2', [ids.from, ids.to]);
}
