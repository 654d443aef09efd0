import type { Queryable } from '../db/db.js';
import { MESSAGE_COLUMNS, type MessageRow } from './messageObject.js';

export async function messageGet(db: Queryable, accountId: number, id: string): Promise<MessageRow | undefined> {
  const [row] = await db.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return row;
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
  readonly direction: string | null;
  readonly content: string | null;
}

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
  AND ($11::text IS NULL OR direction = $11)
  AND ($12::text IS NULL OR strpos(content::text, $12) > 0)`;

function params(accountId: number, f: MessageFilter): unknown[] {
  return [accountId, f.fromId, f.toId, f.messageUuid, f.destination, f.status, f.tags, f.channelType, f.senderName, f.trafficCenterId, f.direction, f.content];
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
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${WHERE} ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT $13 OFFSET $14`,
    [...params(accountId, filter), limit, offset],
  );
}

export async function messageListCount(db: Queryable, accountId: number, filter: MessageFilter): Promise<number> {
  const [row] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM messages WHERE ${WHERE}`, params(accountId, filter));
  return row!.n;
}

/**
 * Stops messages of an account (POST /api/v1/message/stop): those still waiting in the queue become unsent;
 * returns each found message's status before, whether it was being handed to a carrier (leased), and whether
 * it was stopped.
 */
export async function messageStop(
  db: Queryable,
  accountId: number,
  ids: readonly string[],
  now: Date,
  errorCode: number,
): Promise<{ id: string; status: string; leased: boolean; stopped: boolean }[]> {
  return db.query(
    `WITH current AS (
       SELECT id, status, (lease_expires_at IS NOT NULL AND lease_expires_at > $3) AS leased
       FROM messages WHERE account_id = $1 AND id = ANY($2::uuid[])
       FOR UPDATE
     ),
     stopped AS (
       UPDATE messages m
       SET status = 'unsent', status_at = $3, error_code = $4, due_at = NULL,
           history = m.history || jsonb_build_array(jsonb_build_object('status', 'unsent', 'at', $3::timestamptz, 'errorCode', $4::int, 'detail', 'stopped by the client'))
       FROM current c
       WHERE m.account_id = $1 AND m.id = c.id AND c.status = 'sending' AND NOT c.leased
       RETURNING m.id
     )
     SELECT c.id, c.status, c.leased, (s.id IS NOT NULL) AS stopped FROM current c LEFT JOIN stopped s ON s.id = c.id`,
    [accountId, ids, now, errorCode],
  );
}
