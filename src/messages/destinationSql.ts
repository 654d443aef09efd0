import type { Queryable } from '../db/db.js';

/*
 * message_destinations: the message list's search by destination (GET /api/v1/message?destination=), a row per
 * message written by its insert and never changed, so that the search's index takes one entry a message instead of
 * one for each of its row versions (migration 0057). Partitioned as messages (messagePartitions.ts makes and the
 * retention drops the partitions of both together).
 */

/** The search key of the row `alias`: its account and destination, as message_destinations_key indexes it. */
const keyOf = (alias: string): string => `ARRAY[${alias}.account_id::text || ':' || ${alias}.destination]`;

/** The search key for an account's destination, as the list gives it as a parameter. */
export function destinationKey(accountId: number, destination: string): string {
  return `${accountId}:${destination}`;
}

/** A CTE that records the destination of each message of `source` (account_id, id, destination) just inserted. */
export function destinationsInsertCte(source: string): string {
  return `message_destinations_added AS (
       INSERT INTO message_destinations (account_id, id, destination)
       SELECT s.account_id, s.id, s.destination FROM ${source} s
     )`;
}

/**
 * A condition on messages: the message is one of those of the search key `param` (see {@link destinationKey}),
 * found through message_destinations_key.
 */
export function destinationCondition(param: string): string {
  return `id IN (SELECT d.id FROM message_destinations d WHERE ${keyOf('d')} @> ARRAY[${param}::text])`;
}

/** Deletes the destinations of the account's messages that the retention deleted by rows. */
export async function destinationsDeleteOf(
  db: Queryable,
  accountId: number,
  messages: readonly { readonly id: string; readonly destination: string }[],
): Promise<void> {
  if (messages.length === 0) return;
  // Found by their keys (the one index); the ids pick the deleted ones among a destination's messages.
  await db.query(
    `DELETE FROM message_destinations d
     WHERE ${keyOf('d')} && $1::text[] AND d.id = ANY($2::uuid[])`,
    [[...new Set(messages.map((m) => destinationKey(accountId, m.destination)))], messages.map((m) => m.id)],
  );
}
