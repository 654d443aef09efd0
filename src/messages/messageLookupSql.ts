import type { Queryable } from '../db/db.js';
import { messageApplyTransitions } from './messageDeliverySql.js';
import { MESSAGE_COLUMNS, type MessageRow } from './messageObject.js';
import { statusTransition } from './transitions.js';

export async function messageGet(db: Queryable, accountId: number, id: string): Promise<MessageRow | undefined> {
  const [row] = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return row;
}

/** Which of the given ids are the account's outbound FLASHCALL messages (those a conversion may be reported for). */
export async function messageOutboundFlashcallIds(
  db: Queryable,
  accountId: number,
  ids: readonly string[],
): Promise<Set<string>> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM messages
     WHERE account_id = $1 AND id = ANY($2::uuid[]) AND channel_type = 'FLASHCALL' AND direction = 'outbound'`,
    [accountId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Filters of GET /api/v1/message, already checked. */
export interface MessageFilter {
  readonly fromId: string | null;
  readonly toId: string | null;
  readonly messageUuid: string | null;
  readonly destination: string | null;
  readonly status: string | null;
  readonly tags: string[] | null;
  readonly channelType: string | null;
  readonly senderName: string | null;
  readonly trafficCenterId: number | null;
  readonly direction: string;
  readonly content: string | null;
  /** Every value given must equal read_status (none given: no filter; ALL of an empty array is true). */
  readonly readStatus: readonly string[];
  readonly sendingMethod: string | null;
  readonly templateId: number | null;
  readonly country: string | null;
}

/**
 * The texts the `content` filter searches (the text, not the stored JSON): a string content itself; of an
 * object content its text, caption, media names, header text and document name, footer text and button texts.
 */
const CONTENT_TEXTS = `CASE WHEN jsonb_typeof(content) = 'string' THEN ARRAY[content #>> '{}'] ELSE
    ARRAY[content ->> 'text', content ->> 'caption', content ->> 'imageName', content ->> 'documentName',
      content #>> '{header,text}', content #>> '{header,documentName}', content #>> '{footer,text}']
    || ARRAY(SELECT b ->> 'text' FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(content -> 'buttons') = 'array' THEN content -> 'buttons' ELSE '[]'::jsonb END) AS b)
  END`;

// Time bounds are id bounds: ids are version 7 UUIDs, whose first 48 bits are the creation time.
const WHERE = `account_id = $1
  AND ($2::uuid IS NULL OR id >= $2) AND ($3::uuid IS NULL OR id <= $3)
  AND ($4::uuid IS NULL OR id = $4)
  AND ($5::text IS NULL OR destination = $5)
  AND ($6::text IS NULL OR status = $6)
  AND ($7::text[] IS NULL OR tags && $7)
  AND ($8::text IS NULL OR channel_type = $8)
  AND ($9::text IS NULL OR sender_name = $9)
  AND ($10::bigint IS NULL OR traffic_center_id = $10)
  AND direction = $11
  AND ($12::text IS NULL OR EXISTS (SELECT 1 FROM unnest(${CONTENT_TEXTS}) AS t(text) WHERE strpos(t.text, $12) > 0))
  AND read_status = ALL($13::text[])
  AND ($14::text IS NULL OR sending_method = $14)
  AND ($15::bigint IS NULL OR template_id = $15)
  AND ($16::text IS NULL OR country = $16)`;

function params(accountId: number, f: MessageFilter): unknown[] {
  return [
    accountId,
    f.fromId,
    f.toId,
    f.messageUuid,
    f.destination,
    f.status,
    f.tags,
    f.channelType,
    f.senderName,
    f.trafficCenterId,
    f.direction,
    f.content,
    f.readStatus,
    f.sendingMethod,
    f.templateId,
    f.country,
  ];
}

export async function messageList(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  order: 'asc' | 'desc',
  limit: number,
  offset: number,
): Promise<MessageRow[]> {
  return db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${WHERE}
     ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT $17 OFFSET $18`,
    [...params(accountId, filter), limit, offset],
  );
}

export async function messageListCount(db: Queryable, accountId: number, filter: MessageFilter): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*) AS n FROM messages WHERE ${WHERE}`,
    params(accountId, filter),
  );
  return row!.n;
}

/**
 * Stops messages of an account (POST /api/v1/message/stop): those still waiting in the queue become unsent, with
 * their callback event and refund, like any unsent message. Returns each found message's status before, whether it
 * was being handed to a carrier (leased), and whether it was stopped. Call in a transaction: the rows are locked
 * (in the global order of message locks) while they are looked at, so that no worker claims one in between.
 */
export async function messageStop(
  tx: Queryable,
  accountId: number,
  ids: readonly string[],
  now: Date,
  errorCode: number,
): Promise<{ id: string; status: string; leased: boolean; stopped: boolean }[]> {
  const current = await tx.query<{ id: string; status: string; leased: boolean }>(
    `SELECT id, status, (lease_expires_at IS NOT NULL AND lease_expires_at > $3) AS leased
     FROM messages WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`,
    [accountId, ids, now],
  );
  const stoppable = current.filter((c) => c.status === 'sending' && !c.leased);
  const unmoved = await messageApplyTransitions(
    tx,
    stoppable.map((c) =>
      statusTransition({ accountId, id: c.id, status: 'unsent', at: now, errorCode, detail: 'stopped by the client' }),
    ),
  );
  return current.map((c) => ({ ...c, stopped: stoppable.includes(c) && !unmoved.has(c.id) }));
}
