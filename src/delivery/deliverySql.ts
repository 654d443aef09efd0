import type { Queryable } from '../db/db.js';
import { ledgerCreditCte } from '../accounts/ledgerSql.js';
import { insertEventsCte, priceExtra, statusEventsCte, wantsEvent } from '../callbacks/eventSql.js';
import { dirtyDaysCte } from '../statistics/dirtyDaysSql.js';
import type { Channel } from '../shared/channels.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/sendWindow.js';
import { READ_TRACKED, type Status } from './statuses.js';
import type { Transition } from './transitions.js';

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
  /** Milliseconds since the epoch: cheaper to read than timestamps, on the hottest query. */
  deadline_ms: number;
  planned_send_ms: number | null;
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
       (extract(epoch FROM m.deadline_at) * 1000)::float8 AS deadline_ms,
       (extract(epoch FROM m.planned_send_at) * 1000)::float8 AS planned_send_ms, m.attempts`,
    [now, limit, new Date(now.getTime() + leaseMs)],
  );
}

/** One accepted submission's parts, so that receipts find their message. */
export interface SubmissionRow {
  readonly connectorId: string;
  readonly carrierIds: readonly string[];
  readonly accountId: number;
  readonly id: string;
  readonly at: Date;
}

/**
 * Applies transitions to messages in one statement (with the submissions to record and the callback events the
 * changes raise, in the same statement) and returns the ids of the messages that did not move (usually none, so
 * the answer stays small). Messages that became unsent are refunded by a second statement: a caller with unsent
 * transitions runs this in a transaction. A transition applies only where the message is in one of its
 * `from` statuses. The due time follows the new status: a retry's own time; sent -> the end of its lifetime;
 * delivered on a read-tracked channel -> the end of the wait for a read; otherwise nothing is due.
 */
export async function messageApplyTransitions(
  db: Queryable,
  transitions: readonly Transition[],
  submissions: readonly SubmissionRow[] = [],
): Promise<Set<string>> {
  if (transitions.length === 0 && submissions.length === 0) return new Set();
  const rows = transitions.map((t) => ({
    a: t.accountId,
    id: t.id,
    st: t.status,
    fr: t.from,
    at: t.at.toISOString(),
    // Absent keys read as NULL.
    ec: t.errorCode ?? undefined,
    cn: t.connectorId ?? undefined,
    sa: t.sentAt?.toISOString(),
    due: t.dueAt?.toISOString(),
    h: t.history,
  }));
  const parts = submissions.flatMap((s) =>
    s.carrierIds.map((ci, i) => ({ cn: s.connectorId, ci, a: s.accountId, id: s.id, p: i + 1, n: s.carrierIds.length, at: s.at.toISOString() })),
  );
  const unmoved = await db.query<{ id: string }>(
    `WITH r AS (
       SELECT * FROM json_to_recordset($1::json) AS r(
         a bigint, id uuid, st text, fr text[], at timestamptz, ec integer, cn text, sa timestamptz, due timestamptz, h jsonb)
     ),
     parts AS (
       INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
       SELECT p.cn, p.ci, p.a, p.id, p.p, p.n, p.at
       FROM json_to_recordset($2::json) AS p(cn text, ci text, a bigint, id uuid, p smallint, n smallint, at timestamptz)
       ON CONFLICT (connector_id, carrier_id) DO NOTHING
     ),
     moved AS (
     UPDATE messages m
     SET status = r.st, status_at = r.at, lease_expires_at = NULL,
         price_final = CASE WHEN r.st = 'sending' THEN m.price_final ELSE true END,
         error_code = coalesce(r.ec, m.error_code),
         connector_id = coalesce(r.cn, m.connector_id),
         sent_at = coalesce(r.sa, CASE WHEN r.st IN ('delivered', 'undelivered', 'read') THEN coalesce(m.sent_at, r.at) ELSE m.sent_at END),
         read_status = CASE WHEN r.st IN ('read', 'unread') THEN r.st ELSE m.read_status END,
         due_at = CASE
           WHEN r.due IS NOT NULL THEN r.due
           WHEN r.st = 'sent' THEN r.at + make_interval(secs => coalesce(m.ttl, $4))
           WHEN r.st = 'delivered' AND m.channel_type = ANY($3::text[]) THEN r.at + make_interval(secs => coalesce(m.ttl, $4))
           ELSE NULL END,
         history = m.history || r.h
     FROM r
     WHERE m.account_id = r.a AND m.id = r.id AND m.status = ANY(r.fr)
     RETURNING m.account_id, m.id, m.created_at, m.channel_type, m.callback_target_id, m.callback_events, r.h
     ),
     ${statusEventsCte('moved')},
     ${dirtyDaysCte('moved')}
     SELECT r.id FROM r WHERE NOT EXISTS (SELECT 1 FROM moved WHERE moved.id = r.id)`,
    [JSON.stringify(rows), JSON.stringify(parts), READ_TRACKED_LIST, DEFAULT_TTL],
  );
  const notMoved = new Set(unmoved.map((row) => row.id));
  // Messages that became unsent get their price back (a second statement: call in a transaction then).
  const unsent = transitions.filter((t) => t.status === 'unsent' && !notMoved.has(t.id));
  if (unsent.length > 0) await messageRefundUnsent(db, unsent, unsent[0]!.at);
  return notMoved;
}

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
       SELECT account_id, id, CASE status WHEN 'sent' THEN 'undelivered' ELSE 'unread' END AS st,
              CASE status WHEN 'sent' THEN $3::int ELSE $4::int END AS ec
       FROM messages
       WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND due_at <= $1
       ORDER BY due_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ),
     moved AS (
       UPDATE messages m
       SET status = due.st,
           read_status = CASE WHEN due.st = 'unread' THEN 'unread' ELSE m.read_status END,
           error_code = due.ec, status_at = $1, due_at = NULL,
           history = m.history || jsonb_build_array(jsonb_build_object('status', due.st, 'at', $1::timestamptz, 'errorCode', due.ec))
       FROM due
       WHERE m.account_id = due.account_id AND m.id = due.id
       RETURNING m.account_id, m.id, m.created_at, m.status, m.channel_type, m.callback_target_id, m.callback_events,
         jsonb_build_array(jsonb_build_object('status', due.st, 'at', $1::timestamptz, 'errorCode', due.ec)) AS h
     ),
     ${statusEventsCte('moved')},
     ${dirtyDaysCte('moved')}
     SELECT account_id, id, status FROM moved`,
    [now, limit, errors.noReceipt, errors.notRead],
  );
}

/**
 * Gives back the price of messages that became unsent (DESIGN section 7): one ledger entry per account and
 * currency, the running balance moved in the same statement, and a `price` event (price 0) where requested.
 * Each message is refunded once.
 */
export async function messageRefundUnsent(db: Queryable, messages: readonly { accountId: number; id: string }[], now: Date): Promise<number> {
  if (messages.length === 0) return 0;
  const [row] = await db.query<{ n: number }>(
    `WITH r AS (SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid)),
     refunded AS (
       UPDATE messages m SET price_refunded = true, price_final = true
       FROM r
       WHERE m.account_id = r.a AND m.id = r.id AND m.status = 'unsent' AND NOT m.price_refunded AND m.price > 0
       RETURNING m.account_id, m.id, m.channel_type, m.total_parts, m.price, m.currency, m.callback_target_id, m.callback_events
     ),
     ${ledgerCreditCte("(SELECT account_id, currency, sum(price) AS amount FROM refunded GROUP BY account_id, currency)", 'refund', '$2::timestamptz')},
     refund_events AS (
       SELECT callback_target_id AS target_id, account_id, id AS message_id, 'price' AS event, channel_type,
         NULL::text AS status, $2::timestamptz AS at, NULL::int AS error_code, ${priceExtra('refunded', '0')} AS extra
       FROM refunded
       WHERE ${wantsEvent('refunded', "'price'")}
     ),
     ${insertEventsCte('refund_events', 'ORDER BY message_id', 'refund_inserted')}
     SELECT count(*)::int AS n FROM refunded`,
    [JSON.stringify(messages.map((m) => ({ a: m.accountId, id: m.id }))), now],
  );
  return row!.n;
}
