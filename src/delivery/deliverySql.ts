import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/sendWindow.js';
import { FROM_STATUSES, READ_TRACKED, type Status } from './statuses.js';

/** A message claimed for sending, with what sending it needs. */
export interface ClaimedMessage {
  account_id: number;
  id: string;
  channel_type: Channel;
  sender_name: string;
  destination: string;
  country: string | null;
  content: unknown;
  total_parts: number;
  ttl: number | null;
  external_message_id: string | null;
  use_local_time: boolean;
  local_send_time: string | null;
  local_completion_time: string | null;
  hours: number[] | null;
  days: number[] | null;
  deadline_at: Date;
  planned_send_at: Date | null;
  attempts: number;
}

const READ_TRACKED_LIST = [...READ_TRACKED];
const DEFAULT_TTL = DEFAULT_TTL_SECONDS;

/**
 * Claims up to `limit` messages whose send attempt is due, oldest first, skipping rows other workers hold, and
 * leases them: their due time moves to the end of the lease, so that a worker that dies holding them lets them
 * fall due again.
 */
export async function messageClaimDue(
  db: Queryable,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<ClaimedMessage[]> {
  return db.query<ClaimedMessage>(
    `WITH due AS (
       SELECT account_id, id FROM messages
       WHERE status = 'sending' AND due_at <= $1
       ORDER BY due_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE messages m
     SET due_at = $3, lease_expires_at = $3, attempts = m.attempts + 1
     FROM due
     WHERE m.account_id = due.account_id AND m.id = due.id
     RETURNING m.account_id, m.id, m.channel_type, m.sender_name, m.destination, m.country, m.content, m.total_parts,
       m.ttl, m.external_message_id, m.use_local_time, m.local_send_time, m.local_completion_time, m.hours, m.days,
       m.deadline_at, m.planned_send_at, m.attempts`,
    [now, limit, new Date(now.getTime() + leaseMs)],
  );
}

export interface SentRecord {
  readonly accountId: number;
  readonly id: string;
  readonly connectorId: string;
  readonly at: Date;
  readonly carrierIds: readonly string[];
}

/**
 * Records accepted submissions: status `sent` (the wait for a final status starts: due at sent + ttl) and one
 * submissions row per part, so that receipts find the message. The submissions are recorded even when the message
 * has moved on (a receipt overtook this record), so that later receipts still match.
 */
export async function messageMarkSent(db: Queryable, records: readonly SentRecord[]): Promise<void> {
  const rows = records.map((r) => ({ a: r.accountId, id: r.id, cn: r.connectorId, at: r.at.toISOString(), ci: r.carrierIds }));
  await db.query(
    `WITH r AS (
       SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid, cn text, at timestamptz, ci text[])
     ),
     sent AS (
       UPDATE messages m
       SET status = 'sent', status_at = r.at, sent_at = r.at, connector_id = r.cn, lease_expires_at = NULL,
           due_at = r.at + make_interval(secs => coalesce(m.ttl, $2)),
           history = m.history || jsonb_build_array(jsonb_build_object('status', 'sent', 'at', r.at, 'connector', r.cn))
       FROM r
       WHERE m.account_id = r.a AND m.id = r.id AND m.status = 'sending'
       RETURNING m.id
     )
     INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
     SELECT r.cn, c.carrier_id, r.a, r.id, c.part, cardinality(r.ci), r.at
     FROM r, unnest(r.ci) WITH ORDINALITY AS c(carrier_id, part)
     ON CONFLICT (connector_id, carrier_id) DO NOTHING`,
    [JSON.stringify(rows), DEFAULT_TTL],
  );
}

export interface RetryRecord {
  readonly accountId: number;
  readonly id: string;
  readonly dueAt: Date;
  readonly at: Date;
  readonly reason: string;
  readonly errorCode: number | null;
}

/** Returns claimed messages to the queue for another attempt at `dueAt`, noting why in their history. */
export async function messageRetry(db: Queryable, records: readonly RetryRecord[]): Promise<void> {
  const rows = records.map((r) => ({ a: r.accountId, id: r.id, due: r.dueAt.toISOString(), at: r.at.toISOString(), why: r.reason, ec: r.errorCode }));
  await db.query(
    `WITH r AS (
       SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid, due timestamptz, at timestamptz, why text, ec integer)
     )
     UPDATE messages m
     SET due_at = r.due, lease_expires_at = NULL,
         history = m.history || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
           'status', 'sending', 'at', r.at, 'retryAt', r.due, 'detail', r.why, 'errorCode', r.ec)))
     FROM r
     WHERE m.account_id = r.a AND m.id = r.id AND m.status = 'sending'`,
    [JSON.stringify(rows)],
  );
}

export interface StatusRecord {
  readonly accountId: number;
  readonly id: string;
  readonly status: Exclude<Status, 'sending' | 'inbound_sent' | 'sent'>;
  readonly at: Date;
  readonly errorCode: number | null;
  readonly detail?: string;
}

/**
 * Moves messages to a new status where the status rules allow it (never backwards) and returns the ones that
 * moved. A final status clears the due time; `delivered` on a read-tracked channel starts the wait for a read.
 */
export async function messageSetStatus(db: Queryable, records: readonly StatusRecord[]): Promise<{ account_id: number; id: string; status: Status }[]> {
  if (records.length === 0) return [];
  const rows = records.map((r) => ({
    a: r.accountId,
    id: r.id,
    st: r.status,
    at: r.at.toISOString(),
    ec: r.errorCode,
    dt: r.detail ?? null,
    fr: FROM_STATUSES[r.status],
  }));
  return db.query(
    `WITH r AS (
       SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid, st text, at timestamptz, ec integer, dt text, fr text[])
     )
     ${STATUS_UPDATE} RETURNING m.account_id, m.id, m.status`,
    [JSON.stringify(rows), READ_TRACKED_LIST, DEFAULT_TTL],
  );
}

/**
 * The one status transition of a message, as SQL: applies the rows of a relation `r` (a: account, id, st: new
 * status, at, ec: error code, dt: detail, fr: statuses it may come from) where the message is in one of `fr`.
 * Parameters $2 (read-tracked channels) and $3 (default ttl) must be bound by the caller.
 */
export const STATUS_UPDATE = `UPDATE messages m
     SET status = r.st, status_at = r.at, lease_expires_at = NULL,
         error_code = coalesce(r.ec, m.error_code),
         sent_at = CASE WHEN r.st IN ('delivered', 'undelivered', 'read') THEN coalesce(m.sent_at, r.at) ELSE m.sent_at END,
         read_status = CASE WHEN r.st IN ('read', 'unread') THEN r.st ELSE m.read_status END,
         due_at = CASE
           WHEN r.st = 'delivered' AND m.channel_type = ANY($2::text[])
             THEN r.at + make_interval(secs => coalesce(m.ttl, $3))
           ELSE NULL END,
         history = m.history || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
           'status', r.st, 'at', r.at, 'errorCode', r.ec, 'detail', r.dt)))
     FROM r
     WHERE m.account_id = r.a AND m.id = r.id AND m.status = ANY(r.fr)`;

/** Parameters $2 and $3 of {@link STATUS_UPDATE}. */
export const STATUS_UPDATE_PARAMS: readonly unknown[] = [READ_TRACKED_LIST, DEFAULT_TTL];

/** Notes receipts that changed nothing (late or duplicate) in their messages' history, marked `ignored`. */
export async function messageNoteIgnored(
  db: Queryable,
  notes: readonly { accountId: number; id: string; status: string; at: Date }[],
): Promise<void> {
  if (notes.length === 0) return;
  await db.query(
    `WITH r AS (SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid, st text, at timestamptz))
     UPDATE messages m
     SET history = m.history || jsonb_build_array(jsonb_build_object('status', r.st, 'at', r.at, 'ignored', true))
     FROM r WHERE m.account_id = r.a AND m.id = r.id`,
    [JSON.stringify(notes.map((n) => ({ a: n.accountId, id: n.id, st: n.status, at: n.at.toISOString() })))],
  );
}

/**
 * Ends the waits that have run out: `sent` without a final receipt within its lifetime -> `undelivered`,
 * `delivered` on a read-tracked channel without a read -> `unread`. Rows other workers hold are skipped.
 */
export async function messageExpireDue(
  db: Queryable,
  now: Date,
  limit: number,
  errors: { noReceipt: number; notRead: number },
): Promise<{ account_id: number; id: string; status: Status }[]> {
  return db.query(
    `WITH due AS (
       SELECT account_id, id FROM messages
       WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND due_at <= $1
       ORDER BY due_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE messages m
     SET status = CASE m.status WHEN 'sent' THEN 'undelivered' ELSE 'unread' END,
         read_status = CASE m.status WHEN 'delivered' THEN 'unread' ELSE m.read_status END,
         error_code = CASE m.status WHEN 'sent' THEN $3::int ELSE $4::int END,
         status_at = $1, due_at = NULL,
         history = m.history || jsonb_build_array(jsonb_build_object(
           'status', CASE m.status WHEN 'sent' THEN 'undelivered' ELSE 'unread' END, 'at', $1,
           'errorCode', CASE m.status WHEN 'sent' THEN $3::int ELSE $4::int END))
     FROM due
     WHERE m.account_id = due.account_id AND m.id = due.id
     RETURNING m.account_id, m.id, m.status`,
    [now, limit, errors.noReceipt, errors.notRead],
  );
}
