import type { Queryable } from '../db/db.js';

/*
 * message_destinations: the message list's search by destination (GET /api/v1/message?destination=), a row per
 * message written by its insert and never changed, so that the search's index takes one entry a message instead of
 * one for each of its row versions (migration 0057). Partitioned as messages (messagePartitions.ts makes and the
 * retention drops the partitions of both together).
 */

/** A CTE that records the destination of each message of `source` (account_id, id, destination) just inserted. */
export function destinationsInsertCte(source: string): string {
  return `message_destinations_added AS (
       INSERT INTO message_destinations (account_id, id, destination)
       SELECT s.account_id, s.id, s.destination FROM ${source} s
     )`;
}

/**
 * A condition on the message `m`: it is one of those of the account `account` (a parameter) to the destination
 * `param`, found through message_destinations_search (account, destination; migration 0058).
 */
export function destinationCondition(m: string, account: string, param: string): string {
  return `${m}.id IN (
    SELECT d.id FROM message_destinations d WHERE d.account_id = ${account} AND d.destination = ${param})`;
}

/** Deletes the destinations of the account's messages that the retention deleted by rows. */
export async function destinationsDeleteOf(
  db: Queryable,
  accountId: number,
  messages: readonly { readonly id: string; readonly destination: string }[],
): Promise<void> {
  if (messages.length === 0) return;
  // Found by their destinations (the one index); the ids pick the deleted ones among a destination's messages.
  await db.query(
    `DELETE FROM message_destinations d
     WHERE d.account_id = $1 AND d.destination = ANY($2::text[]) AND d.id = ANY($3::uuid[])`,
    [accountId, [...new Set(messages.map((m) => m.destination))], messages.map((m) => m.id)],
  );
}
