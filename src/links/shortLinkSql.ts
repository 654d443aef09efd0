import { cascadeOf, eventSelect, insertEventsCte, wantsEvent } from '../callbacks/index.js';
import type { Queryable } from '../db/db.js';
import { dirtyDaysCte } from '../db/dirtyDaysSql.js';
import { type MessageIdRange, messagesJoin } from '../messages/index.js';

/** Stores messages' short links; a link without a url is an unsubscribe link. */
export async function shortLinkInsert(
  tx: Queryable,
  accountId: number,
  links: readonly { messageId: string; code: string; url: string | null }[],
  now: Date,
): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    `INSERT INTO short_links (code, account_id, message_id, url, unsubscribe, created_at)
     SELECT c, $1, m, u, u IS NULL, $5 FROM unnest($2::text[], $3::uuid[], $4::text[]) AS l(c, m, u)`,
    [accountId, links.map((l) => l.code), links.map((l) => l.messageId), links.map((l) => l.url), now],
  );
}

export interface ClickedLink {
  account_id: number;
  message_id: string;
  url: string;
}

/**
 * Records a click and, where the message asked for it, its `click` event, in one statement; returns the link,
 * or undefined for an unknown code.
 */
export async function shortLinkClick(
  db: Queryable,
  code: string,
  shortUrl: string,
  now: Date,
): Promise<ClickedLink | undefined> {
  const [row] = await db.query<ClickedLink>(
    `WITH link AS (
       UPDATE short_links SET clicks = clicks + 1, last_click_at = $2 WHERE code = $1 AND NOT unsubscribe
       RETURNING account_id, message_id, url
     ),
     click_events AS (${eventSelect(
       {
         targetId: 'm.callback_target_id',
         accountId: 'm.account_id',
         messageId: 'm.id',
         event: "'click'",
         channelType: 'm.channel_type',
         status: 'NULL::text',
         at: '$2::timestamptz',
         errorCode: 'NULL::int',
         extra: "jsonb_build_object('url', link.url, 'short_url', $3::text)",
         ...cascadeOf('m'),
       },
       messagesJoin('link', 'm'),
       wantsEvent('m', "'click'"),
     )}),
     ${insertEventsCte('click_events', '')},
     clicked AS (SELECT m.account_id, m.created_at FROM ${messagesJoin('link', 'm')}),
     ${dirtyDaysCte('clicked')}
     SELECT account_id, message_id, url FROM link`,
    [code, now, shortUrl],
  );
  return row;
}

/** The message an unsubscribe link was sent in: whom it lists, on what channel and sender name (DESIGN 20). */
export interface UnsubscribeTarget {
  readonly account_id: number;
  readonly message_id: string;
  readonly channel_type: string;
  readonly sender_name: string;
  readonly destination: string;
  /** When its subscriber confirmed, if they did. */
  readonly last_click_at: Date | null;
}

/** The message of an unsubscribe link, or undefined for a code that is none (or whose message is gone). */
export async function shortLinkUnsubscribeTarget(db: Queryable, code: string): Promise<UnsubscribeTarget | undefined> {
  const [row] = await db.query<UnsubscribeTarget>(
    `WITH link AS (
       SELECT account_id, message_id, last_click_at FROM short_links WHERE code = $1 AND unsubscribe
     )
     SELECT link.account_id, link.message_id, m.channel_type, m.sender_name, m.destination, link.last_click_at
     FROM ${messagesJoin('link', 'm')}`,
    [code],
  );
  return row;
}

/**
 * Records when an unsubscribe link was confirmed (its first confirmation). Not a click: the statistics' clicks are
 * the redirects' only.
 */
export async function shortLinkUnsubscribeConfirmed(db: Queryable, code: string, now: Date): Promise<void> {
  await db.query('UPDATE short_links SET last_click_at = coalesce(last_click_at, $2) WHERE code = $1 AND unsubscribe', [
    code,
    now,
  ]);
}

/**
 * Short links' clicks per message, for the statistics: a SELECT of (message_id, clicks) over the links of `account`
 * (an SQL expression) whose message ids pass `messageIds` (a condition on the column it is given).
 */
export function shortLinkClicksPerMessageSql(account: string, messageIds: (column: string) => string): string {
  return `SELECT message_id, sum(clicks) AS clicks FROM short_links
       WHERE account_id = ${account} AND (${messageIds('message_id')}) GROUP BY message_id`;
}

/** Deletes an account's short links of the messages with ids in [from, to) (a partition the retention drops). */
export async function shortLinksDeleteOfMessageRange(
  db: Queryable,
  accountId: number,
  ids: MessageIdRange,
): Promise<void> {
  const sql = 'DELETE FROM short_links WHERE account_id = $1 AND message_id >= $2 AND message_id < $3';
  await db.query(sql, [accountId, ids.from, ids.to]);
}

/** Deletes an account's short links of the given messages (deleted by the retention). */
export async function shortLinksDeleteOfMessages(
  db: Queryable,
  accountId: number,
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await db.query(
    'DELETE FROM short_links s USING unnest($2::uuid[]) AS d(id) WHERE s.account_id = $1 AND s.message_id = d.id',
    [accountId, messageIds],
  );
}
