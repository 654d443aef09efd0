import type { Queryable } from '../db/db.js';
import { NIL_UUID } from './messagePartitions.js';

/*
 * Reads of messages for figures: the statistics (rollup and live), the delivery queue's metrics, and where the
 * rollup starts.
 */

/** Per-message counts kept by other tables, joined to each message by its id. */
export interface MessageCounts {
  /** A SELECT of (message_id, clicks). */
  readonly clicks: string;
  /** A SELECT of (message_id, conversions). */
  readonly conversions: string;
}

/** A message's tags, each once (at its first place): no hash or sort per message, unlike UNION or DISTINCT. */
const DISTINCT_TAGS =
  'SELECT u.tag FROM unnest(m.tags) WITH ORDINALITY AS u(tag, n) WHERE array_position(m.tags, u.tag) = u.n';

/**
 * A SELECT of the per-message figures of an account's outbound messages whose ids pass `messageIds` (a condition on
 * the column it is given), as the statistics rollup's rows: by day (UTC), channel, sender name, status, currency,
 * cascade step (0: none), traffic type, and tag ('' = the message itself; with `withTags`, one more row per tag it
 * carries, once however often it is repeated: a list filtered by a tag counts from these rows), with the clicks
 * and conversions of `counts` (0 where a message has none). `account` is an SQL expression.
 */
export function messageFiguresSql(
  account: string,
  messageIds: (column: string) => string,
  withTags: boolean,
  counts: MessageCounts,
): string {
  return `SELECT (m.created_at AT TIME ZONE 'UTC')::date AS day, m.channel_type, m.sender_name, m.status,
       coalesce(m.currency, '') AS currency, ${withTags ? 't.tag' : "''::text AS tag"},
       coalesce(m.cascade_step, 0)::smallint AS cascade_step, m.traffic_type, 1 AS messages,
       m.total_parts AS parts,
       CASE WHEN m.price_refunded THEN 0 ELSE m.price END AS price,
       coalesce(l.clicks, 0) AS clicks, coalesce(c.conversions, 0) AS conversions
     FROM messages m
     LEFT JOIN (
       ${counts.clicks}
     ) l ON l.message_id = m.id
     LEFT JOIN (
       ${counts.conversions}
     ) c ON c.message_id = m.id
     ${withTags ? `CROSS JOIN LATERAL (SELECT '' AS tag UNION ALL ${DISTINCT_TAGS}) t` : ''}
     WHERE m.account_id = ${account} AND m.direction = 'outbound' AND (${messageIds('m.id')})`;
}

/** The id of an account's oldest message (ids are time-ordered), or undefined when it has none. */
export async function messageOldestId(db: Queryable, accountId: number): Promise<string | undefined> {
  const [first] = await db.query<{ id: string }>('SELECT id FROM messages WHERE account_id = $1 ORDER BY id LIMIT 1', [
    accountId,
  ]);
  return first?.id;
}

export interface QueueFigure {
  /** waiting (to be sent), sent (waiting for a receipt), delivered (waiting for a read). */
  state: string;
  messages: number;
  /**
   * Seconds since the oldest of them fell due (waiting: its planned send time, else its creation, held ones left
   * out) or entered the state (the others); 0 when none.
   */
  oldest_age_s: number;
}

/**
 * The delivery queue by state, read through the partial indexes that hold only waiting messages, so a scrape
 * costs the size of the queue, not of the messages table. A waiting message's `due_at` is not when it fell due: a
 * retry moves it to the next try (and a lease in the row, the fast lane's, to the lease's end), so the oldest of them
 * by `due_at` read
 * "0 s" for a message a down carrier had kept for a minute. Its planned send time (its creation when sent at once)
 * is; a message held (`due_at` infinity: a fraud hold, a paused dispatch) is not waiting to be sent. Only ids from
 * `floor` on are read (the queue's floor, messagePartitions.ts: no older id waits), so that the plan holds only the
 * partitions from there, as the claim's.
 */
export async function messageQueueFigures(db: Queryable, now: Date, floor = NIL_UUID): Promise<QueueFigure[]> {
  return db.query<QueueFigure>(
    `SELECT 'waiting' AS state, count(*)::int AS messages,
       coalesce(extract(epoch FROM $1::timestamptz - min(coalesce(planned_send_at, created_at))
         FILTER (WHERE coalesce(planned_send_at, created_at) <= $1 AND due_at <> 'infinity')), 0)::float8
         AS oldest_age_s
     FROM messages WHERE status = 'sending' AND id >= $2
     UNION ALL
     SELECT status, count(*)::int, coalesce(extract(epoch FROM $1::timestamptz - min(status_at)), 0)::float8
     FROM messages WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND id >= $2
     GROUP BY status`,
    [now, floor],
  );
}
