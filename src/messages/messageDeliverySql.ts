import type { Queryable } from '../db/db.js';
import { ledgerCreditCte } from '../accounts/index.js';
import {
  cascadeOf,
  type EventColumns,
  eventSelect,
  insertEventsCte,
  PRICE_EVENT_ORDER,
  priceExtra,
  statusEventsCte,
  statusEventsSelect,
  wantsEvent,
} from '../callbacks/index.js';
import { dirtyDaysCte } from '../db/dirtyDaysSql.js';
import { type Channel, CHANNELS } from '../shared/channels.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/index.js';
import { READ_TRACKED, type ReadStatus, type Status } from './statuses.js';
import type { Transition } from './transitions.js';
import { TRAFFIC_TYPES, type TrafficType } from './validateMessage.js';

/*
 * The statements the delivery workers run on messages: claim, transitions (with the submissions, callback events,
 * refunds and dirty statistics days they bring), ignored receipts, delivered parts and the ends of lifetimes.
 */

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
  template_id: number | null;
  /** Milliseconds since the epoch: cheaper to read than timestamps, on the hottest query. */
  deadline_ms: number;
  /** The end of the message's lifetime: carriers are given the time left until then. */
  expires_ms: number;
  planned_send_ms: number | null;
  attempts: number;
  /** The cascade the message is a step of (its outcome may create the next step), or null. */
  cascade_id: string | null;
  traffic_type: TrafficType;
}

const READ_TRACKED_LIST = [...READ_TRACKED];
const DEFAULT_TTL = DEFAULT_TTL_SECONDS;

/** Traffic types in the order due messages are claimed; the first two are urgent (see messageClaimDue). */
const CLAIM_ORDER = ['AUTHORIZE', 'TRANSACT', 'SERVICE', 'PROMO'] as const;

/** How many due messages one claim may take. */
export interface ClaimLimits {
  /** In all. */
  readonly total: number;
  /** Of them SERVICE and PROMO messages (the caller keeps room for urgent ones). */
  readonly bulk: number;
  /** Per channel, what it may take and of that its SERVICE and PROMO messages; a channel not listed takes none. */
  readonly channels: readonly { readonly channel: Channel; readonly any: number; readonly bulk: number }[];
}

/** Limits where every channel may take the whole claim. */
export function claimLimits(total: number, bulk = total): ClaimLimits {
  return { total, bulk, channels: CHANNELS.map((channel) => ({ channel, any: total, bulk })) };
}

/**
 * Claims due messages by traffic type first (AUTHORIZE, TRANSACT, SERVICE, PROMO: an authorisation code never
 * waits behind promotions), then the earliest due (by id among those due at the same instant), within `limits`:
 * per channel (a carrier that is slow or down fills its channel's share of a worker's hands, not every place) and
 * in all. One index range scan of `messages_sending_due` per channel and type, each stopping at what is left of
 * its channel's limit, however many messages of later types or of a full channel wait. Rows other workers hold
 * are skipped. The claimed messages are leased: their due time moves to the end of the lease, so that a worker
 * that dies holding them lets them fall due again. Returned in claim order.
 */
export async function messageClaimDue(
  db: Queryable,
  now: Date,
  limits: ClaimLimits,
  leaseMs: number,
): Promise<ClaimedMessage[]> {
  const lanes = limits.channels.filter((c) => c.any > 0);
  if (lanes.length === 0 || limits.total <= 0) return [];
  // What a channel's earlier types took of its limit; the bulk types also count against its bulk limit.
  const taken = (n: number, from = 0): string =>
    CLAIM_ORDER.slice(from, n)
      .map((_, i) => ` - (SELECT count(*) FROM t${from + i} WHERE t${from + i}.channel_type = l.channel_type)`)
      .join('');
  const left = (n: number): string =>
    n < 2 ? `l.room${taken(n)}` : `least(l.room${taken(n)}, l.bulk_room${taken(n, 2)})`;
  const perType = CLAIM_ORDER.map(
    (type, n) => `t${n} AS (
       SELECT c.part, c.row_id, c.account_id, c.id, c.due_at, l.channel_type, ${n} AS rank
       FROM lane l CROSS JOIN LATERAL (
         SELECT tableoid AS part, ctid AS row_id, account_id, id, due_at FROM messages
         WHERE status = 'sending' AND channel_type = l.channel_type AND traffic_type = '${type}' AND due_at <= $1
         ORDER BY due_at, id
         LIMIT greatest(${left(n)}, 0)
         FOR UPDATE SKIP LOCKED
       ) c
     )`,
  );
  const claimed = await db.query<ClaimedMessage & { rank: number }>(
    `WITH lane AS (SELECT * FROM unnest($4::text[], $5::int[], $6::int[]) AS l(channel_type, room, bulk_room)),
     ${perType.join(',\n     ')},
     ranked AS (
       SELECT u.*, row_number() OVER (ORDER BY rank, due_at, id) AS n,
         row_number() OVER (PARTITION BY rank >= 2 ORDER BY rank, due_at, id) AS bulk_n
       FROM (${CLAIM_ORDER.map((_, n) => `SELECT * FROM t${n}`).join(' UNION ALL ')}) u
     ),
     -- The limits in all: urgent types first, then by due time. Rows cut here were locked only until the commit.
     due AS (SELECT part, row_id, rank FROM ranked WHERE n <= $2 AND (rank < 2 OR bulk_n <= $7))
     -- Found again by the versions just locked (nobody else can change them now), through a TID scan: joined by
     -- key, the planner (expecting thousands of claimed rows) hashed the whole table on each claim, 170-500 ms
     -- per claim at 200,000 messages (found by the cascade benchmark, whose later steps all go through claims).
     -- A TID names a row within its partition only: the partition (tableoid) is matched too.
     UPDATE messages m
     SET due_at = $3, lease_expires_at = $3, attempts = m.attempts + 1
     FROM due
     WHERE m.ctid = ANY(ARRAY(SELECT row_id FROM due)) AND m.tableoid = due.part AND m.ctid = due.row_id
     RETURNING m.account_id, m.id, m.channel_type, m.sender_name, m.destination, m.country, m.content, m.total_parts,
       m.ttl, m.external_message_id, m.use_local_time, m.local_send_time, m.local_completion_time, m.hours, m.days,
       m.template_id, (extract(epoch FROM m.deadline_at) * 1000)::float8 AS deadline_ms,
       (extract(epoch FROM coalesce(m.expires_at, m.deadline_at)) * 1000)::float8 AS expires_ms,
       (extract(epoch FROM m.planned_send_at) * 1000)::float8 AS planned_send_ms, m.attempts, m.cascade_id,
       m.traffic_type, due.rank`,
    [
      now,
      limits.total,
      new Date(now.getTime() + leaseMs),
      lanes.map((l) => l.channel),
      lanes.map((l) => l.any),
      lanes.map((l) => l.bulk),
      limits.bulk,
    ],
  );
  // UPDATE ... RETURNING keeps no order: urgent messages go to the connectors first.
  return claimed.sort((a, b) => a.rank - b.rank).map(({ rank: _rank, ...message }) => message);
}

/**
 * When the next lifetime runs out (the first entry of `messages_waiting_due`), or null when none is running: the
 * job looks before it opens a transaction, so that an idle pass is one statement, and knows how long it may rest.
 */
export async function messageNextExpiry(db: Queryable): Promise<Date | null> {
  const [row] = await db.query<{ due_at: Date }>(
    `SELECT due_at FROM messages WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL ORDER BY due_at LIMIT 1`,
  );
  return row?.due_at ?? null;
}

/**
 * When the next message of the queue falls due (a leased one: when its lease ends), or null when none waits: the
 * first entry of each lane of `messages_sending_due` (channel, traffic type), so that an idle dispatcher sleeps
 * until then instead of polling. The index leads with the lane: a plain ORDER BY due_at would read all of it, a
 * million entries behind a large dispatch, each time a dispatcher goes idle.
 */
export async function messageNextDue(db: Queryable): Promise<Date | null> {
  const [row] = await db.query<{ due_at: Date | null }>(
    `SELECT min(l.due_at) AS due_at
     FROM unnest($1::text[]) AS c(channel_type)
     CROSS JOIN unnest($2::text[]) AS t(traffic_type)
     CROSS JOIN LATERAL (
       SELECT due_at FROM messages m
       WHERE m.status = 'sending' AND m.channel_type = c.channel_type AND m.traffic_type = t.traffic_type
       ORDER BY m.due_at LIMIT 1
     ) l`,
    [CHANNELS, TRAFFIC_TYPES],
  );
  return row?.due_at ?? null;
}

/** One accepted submission's parts, so that receipts find their message. */
export interface SubmissionRow {
  readonly connectorId: string;
  readonly carrierIds: readonly string[];
  readonly accountId: number;
  readonly id: string;
  readonly at: Date;
}

/** A price event of a moved message (`mv`), with the given extra fields. */
const priceEvent = (extra: string): EventColumns => ({
  targetId: 'mv.callback_target_id',
  accountId: 'mv.account_id',
  messageId: 'mv.id',
  event: "'price'",
  channelType: 'mv.channel_type',
  status: 'NULL::text',
  at: 'mv.at',
  errorCode: 'NULL::int',
  extra,
  ...cascadeOf('mv'),
});

/**
 * Applies transitions (at most one per message: see roundsOf) in one statement, with the submissions to record,
 * the callback events the changes raise and the refunds of messages that became unsent, and returns the ids of
 * the messages that did not move (usually none, so the answer stays small).
 *
 * Each change is decided on the row as it is once locked: it applies where the message is in one of the
 * transition's `from` statuses (and, for a read or unread, has no read status yet). A message that leaves
 * `sending` by a receipt is recorded as sent first, and a read of a message not yet delivered records the
 * delivery first, so that callbacks always come in the order sent, delivered, read. The price
 * becomes final when the message leaves `sending`: a `price` event then, with price 0 and a refund when it
 * became unsent. The due time follows the new state: a retry's own time; sent, or delivered on a read-tracked
 * channel, -> the end of its lifetime; otherwise nothing is due.
 *
 * Locks are taken in one global order (messages by account and id, then balances by account and currency), so
 * that this statement never deadlocks with another that takes the same locks.
 */
export async function messageApplyTransitions(
  db: Queryable,
  transitions: readonly Transition[],
  submissions: readonly SubmissionRow[] = [],
  ended?: StepOutcome[],
): Promise<Set<string>> {
  if (transitions.length === 0 && submissions.length === 0) return new Set();
  const rows = transitions.map((t) => ({
    account_id: t.accountId,
    id: t.id,
    status: t.status,
    from_statuses: t.from,
    at: t.at.toISOString(),
    // Absent keys read as NULL.
    error_code: t.errorCode ?? undefined,
    connector_id: t.connectorId ?? undefined,
    sent_at: t.sentAt?.toISOString(),
    due_at: t.dueAt?.toISOString(),
    history: t.history,
  }));
  const parts = submissions.flatMap((s) =>
    s.carrierIds.map((carrierId, i) => ({
      connector_id: s.connectorId,
      carrier_id: carrierId,
      account_id: s.accountId,
      message_id: s.id,
      part: i + 1,
      parts: s.carrierIds.length,
      at: s.at.toISOString(),
    })),
  );
  const result = await db.query<{ id: string; step: StepOutcomeRow | null }>(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(account_id bigint, id uuid, status text, from_statuses text[],
         at timestamptz, error_code integer, connector_id text, sent_at timestamptz, due_at timestamptz, history jsonb)
     ),
     parts AS (
       INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
       SELECT p.connector_id, p.carrier_id, p.account_id, p.message_id, p.part, p.parts, p.at
       FROM jsonb_to_recordset($2::jsonb) AS p(connector_id text, carrier_id text, account_id bigint, message_id uuid,
         part smallint, parts smallint, at timestamptz)
       ON CONFLICT (connector_id, carrier_id) DO NOTHING
     ),
     -- Lock first, in order, and read the row as it is then; the update finds it again by its ctid (the version
     -- just locked, which nobody else can change now): a second index lookup per row cost 7-13 % of the writer's
     -- throughput (measured on 2,000-row batches).
     locked AS (
       SELECT m.tableoid AS part, m.ctid AS row_id, m.account_id, m.id, m.status, m.read_status, m.price_final,
         m.price_refunded
       FROM messages m JOIN r ON m.account_id = r.account_id AND m.id = r.id
       ORDER BY m.account_id, m.id
       FOR UPDATE OF m
     ),
     change AS (
       SELECT r.*, l.part, l.row_id, l.price_final AS was_final, l.price_refunded AS was_refunded,
         CASE WHEN r.status IN ('read', 'unread') THEN 'delivered' ELSE r.status END AS new_status,
         CASE WHEN l.status = 'sending' AND r.status IN ('delivered', 'undelivered', 'read')
                AND NOT r.history @> '[{"status": "sent"}]'
              THEN jsonb_build_array(jsonb_build_object('status', 'sent', 'at', r.at)) ELSE '[]'::jsonb END
         || CASE WHEN r.status = 'read' AND l.status <> 'delivered' AND NOT r.history @> '[{"status": "delivered"}]'
              THEN jsonb_build_array(jsonb_build_object('status', 'delivered', 'at', r.at)) ELSE '[]'::jsonb END
         || r.history AS h
       FROM r JOIN locked l ON l.account_id = r.account_id AND l.id = r.id
       WHERE l.status = ANY(r.from_statuses) AND (r.status NOT IN ('read', 'unread') OR l.read_status IS NULL)
     ),
     moved AS (
       UPDATE messages m
       SET status = c.new_status,
           status_at = CASE WHEN c.status IN ('read', 'unread') AND m.status = 'delivered' THEN m.status_at
             ELSE c.at END,
           lease_expires_at = NULL,
           price_final = m.price_final OR c.new_status <> 'sending',
           price_refunded = m.price_refunded OR (c.new_status = 'unsent' AND m.price > 0),
           error_code = coalesce(c.error_code, m.error_code),
           connector_id = coalesce(c.connector_id, m.connector_id),
           sent_at = coalesce(c.sent_at, CASE WHEN c.new_status IN ('delivered', 'undelivered')
             THEN coalesce(m.sent_at, c.at) ELSE m.sent_at END),
           read_status = CASE WHEN c.status IN ('read', 'unread') THEN c.status ELSE m.read_status END,
           due_at = CASE
             WHEN c.due_at IS NOT NULL THEN c.due_at
             WHEN c.new_status = 'sent'
               OR (c.status = 'delivered' AND m.read_status IS NULL AND m.channel_type = ANY($3::text[]))
               THEN coalesce(m.expires_at, c.at + make_interval(secs => coalesce(m.ttl, $4)))
             ELSE NULL END,
           -- A wait for the same reason as the last entry's (a connector down, a closed window: a retry every 2 s
           -- for hours) keeps that entry, from when it started, with the next try: one entry, not one per round.
           history = CASE WHEN c.new_status = 'sending' AND jsonb_array_length(c.h) = 1
               AND m.history->-1->>'status' = 'sending' AND m.history->-1->>'retryAt' IS NOT NULL
               AND m.history->-1->'detail' = c.h->0->'detail'
             THEN jsonb_set(m.history, '{-1,retryAt}', c.h->0->'retryAt')
             ELSE m.history || c.h END
       FROM change c
       WHERE m.tableoid = c.part AND m.ctid = c.row_id
       RETURNING m.account_id, m.id, m.created_at, m.channel_type, m.callback_target_id, m.callback_events,
         m.cascade_id, m.cascade_step, m.status, m.read_status,
         m.total_parts, m.currency, m.price, c.new_status = 'unsent' AND m.price > 0 AND NOT c.was_refunded AS refund,
         NOT c.was_final AND c.new_status <> 'sending' AS price_now_final,
         c.h->0->>'status' = 'unsent' AS unsent_at_once, c.at, c.h
     ),
     ${ledgerCreditCte(REFUNDS, 'refund', 'at')},
     events AS (
       ${statusEventsSelect('moved')}
       UNION ALL
       -- Final when it leaves sending (0 when it leaves unsent)...
       ${eventSelect(
         priceEvent(priceExtra('mv', 'CASE WHEN mv.unsent_at_once THEN 0 ELSE mv.price END')),
         'moved mv',
         `mv.price_now_final AND ${wantsEvent('mv', "'price'")}`,
         String(PRICE_EVENT_ORDER),
       )}
       UNION ALL
       -- ...and 0 when a charged price is refunded, right after the entry that made it unsent.
       ${eventSelect(
         priceEvent(priceExtra('mv', '0')),
         'moved mv',
         `mv.refund AND NOT (mv.price_now_final AND mv.unsent_at_once) AND ${wantsEvent('mv', "'price'")}`,
         `(SELECT x.n FROM jsonb_array_elements(mv.h) WITH ORDINALITY AS x(h, n)
           WHERE x.h->>'status' = 'unsent' LIMIT 1) + 0.5`,
       )}
     ),
     ${insertEventsCte('events', 'ORDER BY message_id, n')},
     ${dirtyDaysCte('moved')}
     SELECT r.id, NULL::json AS step FROM r WHERE NOT EXISTS (SELECT 1 FROM moved WHERE moved.id = r.id)
     UNION ALL
     SELECT mv.id, ${STEP_OUTCOME_JSON} AS step FROM moved mv WHERE ${STEP_ENDED}`,
    [JSON.stringify(sortedForLocks(rows)), JSON.stringify(parts), READ_TRACKED_LIST, DEFAULT_TTL],
  );
  const unmoved = new Set<string>();
  for (const row of result) {
    if (row.step) ended?.push(stepOutcomeOf(row.id, row.step));
    else unmoved.add(row.id);
  }
  return unmoved;
}

/**
 * A step of a cascade that reached an outcome its cascade may move on or end at: a final status, or a read status.
 * (cascades/ decides what it means for the cascade, in the transaction that recorded it.)
 */
export interface StepOutcome {
  readonly accountId: number;
  readonly id: string;
  readonly cascadeId: string;
  readonly cascadeStep: number;
  readonly status: Status;
  readonly readStatus: ReadStatus | null;
  readonly at: Date;
}

interface StepOutcomeRow {
  account_id: number;
  cascade_id: string;
  cascade_step: number;
  status: Status;
  read_status: ReadStatus | null;
  at: string;
}

/** A moved row (`mv`, with cascade and status columns) as a {@link StepOutcomeRow}. */
const STEP_OUTCOME_JSON = `json_build_object('account_id', mv.account_id, 'cascade_id', mv.cascade_id,
  'cascade_step', mv.cascade_step, 'status', mv.status, 'read_status', mv.read_status, 'at', mv.at)`;
const STEP_ENDED = `mv.cascade_id IS NOT NULL AND mv.status IN ('delivered', 'undelivered', 'unsent')`;

const stepOutcomeOf = (id: string, row: StepOutcomeRow): StepOutcome => ({
  accountId: Number(row.account_id),
  id,
  cascadeId: row.cascade_id,
  cascadeStep: Number(row.cascade_step),
  status: row.status,
  readStatus: row.read_status,
  at: new Date(row.at),
});

/** The refunds of moved messages, per account and currency, in the lock order of balances. */
const REFUNDS = `(SELECT account_id, currency, sum(price) AS amount, max(at) AS at FROM moved WHERE refund
  GROUP BY account_id, currency ORDER BY account_id, currency)`;

/** Rows in the global lock order of messages (account, then id), so that statements lock them alike. */
function sortedForLocks<T extends { account_id: number; id: string }>(rows: T[]): T[] {
  return rows.sort((a, b) => a.account_id - b.account_id || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Notes receipts that changed nothing (late or duplicate) in their messages' history, marked `ignored`. */
export async function messageNoteIgnored(
  db: Queryable,
  notes: readonly { accountId: number; id: string; status: string; at: Date }[],
): Promise<void> {
  if (notes.length === 0) return;
  const rows = notes.map((n, i) => ({
    account_id: n.accountId,
    id: n.id,
    status: n.status,
    at: n.at.toISOString(),
    i,
  }));
  await db.query(
    `WITH r AS (
       SELECT account_id, id,
         jsonb_agg(jsonb_build_object('status', status, 'at', at, 'ignored', true) ORDER BY i) AS entries
       FROM jsonb_to_recordset($1::jsonb) AS r(account_id bigint, id uuid, status text, at timestamptz, i integer)
       GROUP BY account_id, id
     ),
     locked AS (
       SELECT m.account_id, m.id FROM messages m JOIN r ON m.account_id = r.account_id AND m.id = r.id
       ORDER BY m.account_id, m.id
       FOR UPDATE OF m
     )
     UPDATE messages m SET history = m.history || r.entries
     FROM r JOIN locked l ON l.account_id = r.account_id AND l.id = r.id
     WHERE m.account_id = r.account_id AND m.id = r.id`,
    [JSON.stringify(rows)],
  );
}

/**
 * Counts newly delivered parts of multi-part messages and returns the messages whose every part is delivered.
 * Messages are locked in the global order (account, id).
 */
export async function messageCountDeliveredParts(
  db: Queryable,
  counts: readonly { accountId: number; id: string; parts: number }[],
): Promise<{ account_id: number; id: string }[]> {
  if (counts.length === 0) return [];
  const rows = await db.query<{ account_id: number; id: string; complete: boolean }>(
    `WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(account_id bigint, id uuid, parts integer)),
     locked AS (
       SELECT m.account_id, m.id FROM messages m JOIN r ON m.account_id = r.account_id AND m.id = r.id
       ORDER BY m.account_id, m.id
       FOR UPDATE OF m
     )
     UPDATE messages m SET parts_delivered = m.parts_delivered + r.parts
     FROM r JOIN locked l ON l.account_id = r.account_id AND l.id = r.id
     WHERE m.account_id = r.account_id AND m.id = r.id
     RETURNING m.account_id, m.id, m.parts_delivered >= m.total_parts AS complete`,
    [JSON.stringify(counts.map((c) => ({ account_id: c.accountId, id: c.id, parts: c.parts })))],
  );
  return rows.filter((r) => r.complete);
}

/**
 * Ends the waits that have run out at the end of a message's lifetime: `sent` without a final receipt ->
 * `undelivered` (error `noReceipt`); `delivered` on a read-tracked channel without a read -> read status `unread`
 * (its status stays `delivered`, with no error: the `read` event carries the message's error code, as every status
 * event does, so the two never disagree). The earliest due first, by id among those due at the same instant (an
 * index scan of `messages_waiting_due` that stops at the limit); rows other workers hold are skipped. Returns what
 * each message reached: a status or `unread`.
 */
export async function messageExpireDue(
  db: Queryable,
  now: Date,
  limit: number,
  errors: { noReceipt: number },
  ended?: StepOutcome[],
): Promise<{ account_id: number; id: string; outcome: 'undelivered' | 'unread' }[]> {
  const rows = await db.query<{
    account_id: number;
    id: string;
    outcome: 'undelivered' | 'unread';
    step: StepOutcomeRow | null;
  }>(
    `WITH due AS (
       SELECT account_id, id, CASE status WHEN 'sent' THEN 'undelivered' ELSE 'unread' END AS outcome,
              CASE status WHEN 'sent' THEN $3::int END AS error_code
       FROM messages
       WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND due_at <= $1
       ORDER BY due_at, id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ),
     moved AS (
       UPDATE messages m
       SET status = CASE WHEN due.outcome = 'undelivered' THEN 'undelivered' ELSE m.status END,
           read_status = CASE WHEN due.outcome = 'unread' THEN 'unread' ELSE m.read_status END,
           error_code = CASE WHEN due.outcome = 'undelivered' THEN due.error_code ELSE m.error_code END,
           status_at = CASE WHEN due.outcome = 'undelivered' THEN $1 ELSE m.status_at END,
           due_at = NULL,
           history = m.history || jsonb_build_array(jsonb_strip_nulls(
             jsonb_build_object('status', due.outcome, 'at', $1::timestamptz, 'errorCode', due.error_code)))
       FROM due
       WHERE m.account_id = due.account_id AND m.id = due.id
       RETURNING m.account_id, m.id, m.created_at, due.outcome, m.channel_type, m.callback_target_id, m.callback_events,
         m.cascade_id, m.cascade_step, m.status, m.read_status, $1::timestamptz AS at, jsonb_build_array(
           jsonb_strip_nulls(
             jsonb_build_object('status', due.outcome, 'at', $1::timestamptz, 'errorCode', due.error_code))) AS h
     ),
     ${statusEventsCte('moved')},
     ${dirtyDaysCte('moved')}
     SELECT mv.account_id, mv.id, mv.outcome, CASE WHEN ${STEP_ENDED} THEN ${STEP_OUTCOME_JSON} END AS step
     FROM moved mv`,
    [now, limit, errors.noReceipt],
  );
  for (const row of rows) if (row.step) ended?.push(stepOutcomeOf(row.id, row.step));
  return rows.map(({ account_id, id, outcome }) => ({ account_id, id, outcome }));
}

/**
 * Locks messages in the global order (account, id) at the start of a transaction of several statements. Each
 * statement keeps that order by itself, but a later statement of the same transaction could lock a message after an
 * earlier one locked a balance (for a refund), while a stop holding that message waits for the balance: taken here
 * first, every message the transaction will change is held before any balance is.
 */
export async function messageLockOrdered(
  tx: Queryable,
  messages: readonly { accountId: number; id: string }[],
): Promise<void> {
  if (messages.length === 0) return;
  await tx.query(
    `SELECT 1 FROM messages m
     JOIN unnest($1::bigint[], $2::uuid[]) AS k(account_id, id) ON m.account_id = k.account_id AND m.id = k.id
     ORDER BY m.account_id, m.id
     FOR UPDATE OF m`,
    [messages.map((m) => m.accountId), messages.map((m) => m.id)],
  );
}
