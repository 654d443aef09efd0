import type { Queryable } from '../../src/db/db.js';
import { queueFollowCte } from '../../src/messages/claimSql.js';

/*
 * Tests read and write a message's stored state through these rather than naming `messages` in their SQL. What
 * changes after a message's insert (its status, times, lease, history, price's finality, route) is to move out of
 * `messages` (docs/scaling.md, "The state table: what building it touches"); when it does, these change and the
 * tests that use them do not.
 */

/**
 * A message's columns, what changes included, as a FROM item named `alias`: `SELECT status FROM ${messageRows()}
 * WHERE id = $1`, or `JOIN ${messageRows('m')} ON ...`.
 */
export const messageRows = (alias = 'messages'): string => `messages AS ${alias}`;

/** What tests set on a stored message: the columns that change after its insert, and two a test stages. */
export interface MessageState {
  readonly status?: string;
  readonly status_at?: Date | string;
  readonly due_at?: Date | string | null;
  readonly lease_expires_at?: Date | string | null;
  readonly attempts?: number;
  /** Its history, whole (an array of entries). */
  readonly history?: readonly unknown[];
  readonly sent_at?: Date | string | null;
  readonly read_status?: string | null;
  readonly connector_id?: string | null;
  readonly planned_send_at?: Date | string | null;
  readonly dispatch_id?: string | null;
  readonly hours?: readonly number[] | null;
}

const JSON_COLUMNS: ReadonlySet<string> = new Set(['history']);

/**
 * Sets columns of the messages chosen by `where` (their ids, or every message of an account) to the given values, as
 * a test staging a state the product would reach by other steps. Returns how many messages it changed.
 */
export async function messagesSet(
  db: Queryable,
  where: { readonly ids: readonly string[]; readonly accountId?: number } | { readonly accountId: number },
  state: MessageState,
): Promise<number> {
  const entries = Object.entries(state).filter(([, v]) => v !== undefined);
  if (entries.length === 0) throw new Error('messagesSet: nothing to set');
  const params: unknown[] = [];
  const set = entries.map(([column, value]) => {
    params.push(JSON_COLUMNS.has(column) ? JSON.stringify(value) : value);
    return `${column} = $${params.length}`;
  });
  const filters: string[] = [];
  if (where.accountId !== undefined) filters.push(`account_id = $${params.push(where.accountId)}`);
  if ('ids' in where) filters.push(`id = ANY($${params.push([...where.ids])}::uuid[])`);
  const [changed] = await db.query<{ n: number }>(
    // The queue follows, as it follows the product's writes (claimSql.ts).
    `WITH changed AS (
       UPDATE messages SET ${set.join(', ')} WHERE ${filters.join(' AND ')}
       RETURNING id, account_id, channel_type, traffic_type, status, due_at
     ),
     ${queueFollowCte('changed')}
     SELECT count(*)::int AS n FROM changed`,
    params,
  );
  return changed!.n;
}

/** A message where the queue (message_queue) and its row disagree. */
export interface QueueDrift {
  readonly id: string;
  readonly status: string | null;
  readonly due_at: Date | null;
  readonly queued_due_at: Date | null;
}

/**
 * The messages where the queue does not follow `messages`: one in `sending` without its queue row or with another
 * due time there, or a queue row whose message is not in `sending` (or gone). Empty when every write kept it.
 */
export async function queueDrift(db: Queryable): Promise<QueueDrift[]> {
  return db.query<QueueDrift>(
    `SELECT coalesce(m.id, q.id) AS id, m.status, m.due_at, q.due_at AS queued_due_at
     FROM messages m FULL JOIN message_queue q ON q.id = m.id AND q.account_id = m.account_id
     WHERE (m.status = 'sending') IS DISTINCT FROM (q.id IS NOT NULL)
       OR (q.id IS NOT NULL AND q.due_at IS DISTINCT FROM m.due_at)`,
  );
}

/**
 * Deletes the messages that `where` (SQL on `messages`, with `params`) chooses, as the retention's drop of their
 * partition would, and their queue rows with them. Returns how many.
 */
export async function messagesDelete(db: Queryable, where: string, params: readonly unknown[] = []): Promise<number> {
  const [deleted] = await db.query<{ n: number }>(
    `WITH gone AS (DELETE FROM messages WHERE ${where} RETURNING id),
     unqueued AS (DELETE FROM message_queue WHERE id IN (SELECT id FROM gone))
     SELECT count(*)::int AS n FROM gone`,
    [...params],
  );
  return deleted!.n;
}
