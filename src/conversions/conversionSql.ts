import type { Queryable } from '../db/db.js';
import { dirtyDaysCte } from '../db/dirtyDaysSql.js';
import { type MessageIdRange, messagesJoin } from '../messages/index.js';

/** A FLASHCALL conversion as the client reported it. */
export interface ConversionRecord {
  readonly messageId: string;
  readonly result: string;
  readonly code: string | null;
}

/**
 * Records conversions (at most one per message: a message's row may not be upserted twice in one statement),
 * replacing a message's earlier one, and marks their messages' days dirty for the statistics, in one statement.
 */
export async function conversionUpsert(
  tx: Queryable,
  accountId: number,
  records: readonly ConversionRecord[],
  now: Date,
): Promise<void> {
  if (records.length === 0) return;
  await tx.query(
    `WITH recorded AS (
       INSERT INTO flashcall_conversions (account_id, message_id, result, code, created_at)
       SELECT $1, m, r, c, $5 FROM unnest($2::uuid[], $3::text[], $4::text[]) AS x(m, r, c)
       ON CONFLICT (account_id, message_id) DO UPDATE
         SET result = excluded.result, code = excluded.code, created_at = excluded.created_at
       RETURNING account_id, message_id
     ),
     converted AS (SELECT m.account_id, m.created_at FROM ${messagesJoin('recorded', 'm')}),
     ${dirtyDaysCte('converted')}
     SELECT 1`,
    [accountId, records.map((r) => r.messageId), records.map((r) => r.result), records.map((r) => r.code), now],
  );
}

/**
 * Conversions per message, for the statistics: a SELECT of (message_id, conversions) over the conversions of
 * `account` (an SQL expression) whose message ids pass `messageIds` (a condition on the column it is given).
 */
export function conversionsPerMessageSql(account: string, messageIds: (column: string) => string): string {
  return `SELECT message_id, count(*) AS conversions FROM flashcall_conversions
       WHERE account_id = ${account} AND (${messageIds('message_id')}) GROUP BY message_id`;
}

/** Deletes an account's conversions of the messages with ids in [from, to) (a partition the retention drops). */
export async function conversionsDeleteOfMessageRange(
  db: Queryable,
  accountId: number,
  ids: MessageIdRange,
): Promise<void> {
  const sql = 'DELETE FROM flashcall_conversions WHERE account_id = $1 AND message_id >= $2 AND message_id < $3';
  await db.query(sql, [accountId, ids.from, ids.to]);
}

/** Deletes an account's conversions of the given messages (deleted by the retention). */
export async function conversionsDeleteOfMessages(
  db: Queryable,
  accountId: number,
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await db.query(
    `DELETE FROM flashcall_conversions c USING unnest($2::uuid[]) AS d(id)
     WHERE c.account_id = $1 AND c.message_id = d.id`,
    [accountId, messageIds],
  );
}
