import { isUniqueViolation } from '../db/connectionErrors.js';
import { type ArrayColumn, arrayLiteral, columnValues, unnestSelect } from '../db/columnArrays.js';
import { genericPlan, isDb, type Queryable } from '../db/db.js';
import { ledgerCreditCte } from '../accounts/index.js';
import {
  cascadeOf,
  type EventColumns,
  eventSelect,
  insertEventsCte,
  PRICE_EVENT_ORDER,
  priceExtra,
  statusEventsSelect,
  wantsEvent,
} from '../callbacks/index.js';
import { dirtyDaysCte } from '../db/dirtyDaysSql.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/index.js';
import { messageIdSpan } from './messagePartitions.js';
import { claimsKeptCte, claimsReleaseCte } from './claimSql.js';
import { submissionRecorded } from './submissionSql.js';
import { READ_TRACKED } from './statuses.js';
import type { Transition } from './transitions.js';
import { STEP_ENDED, STEP_OUTCOME_JSON, type StepOutcome, type StepOutcomeRow, stepOutcomeOf } from './stepOutcomes.js';
import { isoMs } from '../util/time.js';

/*
 * The statements that record what happened to messages: transitions (with the submissions, callback events, refunds
 * and dirty statistics days they bring), ignored receipts, delivered parts, and the lock that orders them.
 */

const READ_TRACKED_LIST = [...READ_TRACKED];
const DEFAULT_TTL = DEFAULT_TTL_SECONDS;

/** One accepted submission's parts, so that receipts find their message. */
export interface SubmissionRow {
  readonly connectorId: string;
  readonly carrierIds: readonly string[];
  readonly accountId: number;
  readonly id: string;
  readonly at: Date;
  /** The provider's price of the message, recorded on its first part. */
  readonly buyPrice?: number;
  /** The provider is polled for the parts' statuses until then (submission_polls). */
  readonly pollUntil?: Date;
}

/** A price event of a moved message (`mv`), with the given extra fields (refundSql.ts writes them too). */
export const priceEvent = (extra: string): EventColumns => ({
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
 * Each change is decided on the row as it is when it is written: it applies where the message is in one of the
 * transition's `from` statuses (and, for a read or unread, has no read status yet). Outside a transaction the
 * statement first runs without locking the rows it reads: a row is updated only if it is still the version read (a
 * concurrent change, seen once the update waits for it, leaves it alone), and only the moved messages' submissions
 * are recorded; the messages that did not move run again, with their submissions, their rows locked first and read
 * as they are then (and the whole batch so when a carrier id was met twice). Most batches move whole at the first
 * run, which writes no lock record a row (docs/scaling.md, "The outcome statement's first run"). In a caller's
 * transaction it runs once, locked first. A message that leaves
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
  rerouted?: string[],
): Promise<Set<string>> {
  if (transitions.length === 0 && submissions.length === 0) return new Set();
  const batch: Batch = { rows: transitionRows(transitions), parts: submissionParts(submissions), ended, rerouted };
  // In a caller's transaction the rows are often locked already (a stop, a dispatch's, the writer's flushes of
  // several statements), and a second run would lock more rows after the first had locked others (and balances),
  // out of the global order: the statement runs once, its rows locked first.
  if (!isDb(db)) return lockedRun(db, batch);
  // Each run its own transaction: the second holds none of the first's locks. A first run that failed changed
  // nothing; one that ran left the messages that did not move, and their submissions, to the second.
  const unmoved = await firstRun(db, batch);
  if (unmoved === undefined) return lockedRun(db, batch);
  if (unmoved.size === 0) return unmoved;
  return lockedRun(db, batchOf(batch, unmoved, true));
}

/**
 * The first run: rows not locked first, submissions inserted plainly (an `ON CONFLICT` insert writes a confirmation
 * record a row as well). Undefined when a submission's carrier id was met twice, in the batch or inserted by a
 * transaction running beside it: the second run's insert skips it.
 */
async function firstRun(db: Queryable, batch: Batch): Promise<Set<string> | undefined> {
  try {
    // Raced or not, what did not move goes to the second run.
    return (await applyStatement(db, batch, false)).unmoved;
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/** Transitions as the statement reads them (TRANSITION_COLUMNS). */
const transitionRows = (transitions: readonly Transition[]) =>
  transitions.map((t) => ({
    account_id: t.accountId,
    id: t.id,
    status: t.status,
    from_statuses: t.from,
    at: isoMs(t.at),
    // Undefined reads as NULL.
    error_code: t.errorCode ?? undefined,
    connector_id: t.connectorId ?? undefined,
    sent_at: t.sentAt ? isoMs(t.sentAt) : undefined,
    due_at: t.dueAt ? isoMs(t.dueAt) : undefined,
    history: t.history,
    route_id: t.route?.id,
    buy_price: t.route?.buyPrice?.amount,
    buy_currency: t.route?.buyPrice?.currency,
    // A carrier's outcome may send the message on through its route's next connector (reroute, DESIGN 21).
    from_receipt: t.receipts.length > 0 || undefined,
    receipt_connector: t.receiptConnector ?? (t.receipts.length > 0 ? (t.connectorId ?? undefined) : undefined),
    attempt: t.attempt,
    claim: t.claim,
  }));

/** Submissions as the statement reads them: one row a part. */
const submissionParts = (submissions: readonly SubmissionRow[]) =>
  submissions.flatMap((s) =>
    s.carrierIds.map((carrierId, i) => ({
      connector_id: s.connectorId,
      carrier_id: carrierId,
      account_id: s.accountId,
      message_id: s.id,
      part: i + 1,
      parts: s.carrierIds.length,
      at: isoMs(s.at),
      buy_price: i === 0 ? s.buyPrice : undefined,
      poll_until: s.pollUntil ? isoMs(s.pollUntil) : undefined,
    })),
  );

type TransitionRow = ReturnType<typeof transitionRows>[number];
type PartRow = ReturnType<typeof submissionParts>[number];

/** The transitions as the statement reads them (`r`): one typed array a column (db/columnArrays.ts). */
const TRANSITION_COLUMNS: readonly ArrayColumn<TransitionRow>[] = [
  { name: 'account_id', type: 'bigint' },
  { name: 'id', type: 'uuid' },
  { name: 'status', type: 'text' },
  { name: 'from_statuses', type: 'text[]', as: 'text', value: (r) => arrayLiteral(r.from_statuses) },
  { name: 'at', type: 'timestamptz' },
  { name: 'error_code', type: 'integer' },
  { name: 'connector_id', type: 'text' },
  { name: 'sent_at', type: 'timestamptz' },
  { name: 'due_at', type: 'timestamptz' },
  { name: 'history', type: 'jsonb', as: 'json', value: (r) => JSON.stringify(r.history) },
  { name: 'route_id', type: 'bigint' },
  { name: 'buy_price', type: 'numeric' },
  { name: 'buy_currency', type: 'text' },
  { name: 'from_receipt', type: 'boolean' },
  { name: 'receipt_connector', type: 'text' },
  { name: 'attempt', type: 'integer' },
  { name: 'claim', type: 'bigint' },
];

/** The submissions' parts as the statement reads them (`p`). */
const PART_COLUMNS: readonly ArrayColumn<PartRow>[] = [
  { name: 'connector_id', type: 'text' },
  { name: 'carrier_id', type: 'text' },
  { name: 'account_id', type: 'bigint' },
  { name: 'message_id', type: 'uuid' },
  { name: 'part', type: 'smallint' },
  { name: 'parts', type: 'smallint' },
  { name: 'at', type: 'timestamptz' },
  { name: 'buy_price', type: 'numeric' },
  { name: 'poll_until', type: 'timestamptz' },
];

// The statement's parameters: $1 the read-tracked channels, $2 the default lifetime, $3-$4 the span of the batch's
// ids, then the transitions' columns and the parts'.
const TRANSITIONS_SELECT = unnestSelect(TRANSITION_COLUMNS, 5, 'r');
const PARTS_SELECT = unnestSelect(PART_COLUMNS, 5 + TRANSITION_COLUMNS.length, 'p');

/** A statement's work: its transitions and submissions, and where it reports the steps ended and the reroutes. */
interface Batch {
  readonly rows: ReturnType<typeof transitionRows>;
  readonly parts: ReturnType<typeof submissionParts>;
  readonly ended: StepOutcome[] | undefined;
  readonly rerouted: string[] | undefined;
}

/** The batch's transitions of the messages `ids`, with their submissions (`parts`) or none. */
const batchOf = (batch: Batch, ids: ReadonlySet<string>, parts: boolean): Batch => ({
  rows: batch.rows.filter((r) => ids.has(r.id)),
  parts: parts ? batch.parts.filter((p) => ids.has(p.message_id)) : [],
  ended: batch.ended,
  rerouted: batch.rerouted,
});

/** The statement of {@link messageApplyTransitions}, with the rows locked and read first or not (`lock`). */
async function applyStatement(
  db: Queryable,
  { rows, parts, ended, rerouted }: Batch,
  lock: boolean,
): Promise<{ unmoved: Set<string>; raced: Set<string> }> {
  if (rows.length === 0 && parts.length === 0) return { unmoved: new Set(), raced: new Set() };
  // Only batches with polled parts carry the statement that records them: the others pay nothing for it.
  const polled = parts.some((p) => p.poll_until !== undefined);
  // Likewise the check of the claim records the outcomes of claimed messages name.
  const claimed = rows.some((r) => r.claim !== undefined);
  // And the release from claim records of what goes back to the queue: a retry, a receipt's reroute.
  const requeued = rows.some(
    (r) => r.status === 'sending' || (r.from_receipt === true && (r.status === 'undelivered' || r.status === 'unsent')),
  );
  const result = await db.query<{ id: string; step: StepOutcomeRow | null; rerouted: boolean; raced: boolean }>(
    genericPlan(`WITH r AS (${TRANSITIONS_SELECT}),
     p AS (${PARTS_SELECT}),
     ${claimed ? `${claimsKeptCte('r')},` : ''}
     -- The rows as read (locked first, in order, at the second run); the update finds each again by its ctid and
     -- changes it only while it is that version (its xmin): a second index lookup per row cost 7-13 % of the
     -- writer's throughput (measured on 2,000-row batches).
     locked AS MATERIALIZED (
       ${messagesByKey(
         'r',
         `m.tableoid AS part, m.ctid AS row_id, m.xmin AS row_xmin, m.account_id, m.id, m.status, m.read_status,
         m.price_final, m.price_refunded, m.connector_id, m.route_id, m.reroute, m.deadline_at, m.attempts,
         -- A rerouted message whose client was told it was sent (an entry not ignored): only those read the history.
         CASE WHEN m.reroute IS NULL THEN false
           ELSE jsonb_path_exists(m.history, '$[*] ? (@.status == "sent" && !(exists(@.ignored)))') END AS told_sent`,
         ['$3', '$4'],
         lock,
       )}
     ),
     -- Materialised, as is change: inlined, each reference to one of their columns in the SET list below was a
     -- copy of its expression, subqueries and all (26 subplans of the reroute check and the history's ignored
     -- entries), planned on every call: 2-8 ms a call, a fifth of the statement's server time.
     applies AS MATERIALIZED (
       SELECT r.*, l.part, l.row_id, l.row_xmin, l.price_final AS was_final, l.price_refunded AS was_refunded,
         CASE WHEN r.status IN ('read', 'unread') THEN 'delivered' ELSE r.status END AS outcome,
         CASE WHEN l.status = 'sending' AND r.status IN ('delivered', 'undelivered', 'read')
                AND NOT r.history @> '[{"status": "sent"}]'
              THEN jsonb_build_array(jsonb_build_object('status', 'sent', 'at', r.at)) ELSE '[]'::jsonb END
         || CASE WHEN r.status = 'read' AND l.status <> 'delivered' AND NOT r.history @> '[{"status": "delivered"}]'
              THEN jsonb_build_array(jsonb_build_object('status', 'delivered', 'at', r.at)) ELSE '[]'::jsonb END
         || r.history AS told,
         coalesce(r.connector_id, l.connector_id) AS via,
         -- Rerouted (DESIGN 21): a carrier's failure its route reroutes on, with tries and connectors left, before
         -- the deadline. The message goes back to the queue for the route's next connector, unseen by the client.
         r.from_receipt AND r.status IN ('undelivered', 'unsent') AND r.at < l.deadline_at
           AND coalesce(r.connector_id, l.connector_id) IS NOT NULL
           AND EXISTS (
             SELECT 1 FROM routes rt
             WHERE rt.id = coalesce(r.route_id, l.route_id)
               AND coalesce(jsonb_array_length(l.reroute->'from'), 0) < (rt.reroute->>'max')::int
               AND jsonb_array_length(rt.connectors) > coalesce(jsonb_array_length(l.reroute->'from'), 0) + 1
               AND (((rt.reroute->>'onUndelivered')::boolean AND r.status = 'undelivered')
                 OR rt.reroute->'errorCodes' @> to_jsonb(r.error_code))
           ) AS rerouted,
         -- Sent again after a reroute, with its receipt or not...
         l.reroute IS NOT NULL AND r.sent_at IS NOT NULL AS sent_again,
         -- ...where the client was told it was sent the first time: not again.
         l.reroute IS NOT NULL AND r.sent_at IS NOT NULL AND l.told_sent AS resent,
         -- What of the history the row says as well (see stored below), read off the transition's own entries, whose
         -- sent entry is at its sent_at by its connector and whose last is at its time (transitions.ts): the first
         -- attempt's sent entry...
         l.reroute IS NULL AND r.sent_at IS NOT NULL AND r.history->0->>'status' = 'sent' AS sent_said,
         -- ...and a final entry, the last (a final status changes no more).
         r.status IN ('delivered', 'undelivered', 'unsent') AND r.history->-1->>'status' = r.status AS final_said
       FROM r JOIN locked l ON l.account_id = r.account_id AND l.id = r.id
       WHERE l.status = ANY(r.from_statuses) AND (r.status NOT IN ('read', 'unread') OR l.read_status IS NULL)
         -- A late receipt of a connector the message was rerouted from belongs to an abandoned attempt.
         AND NOT (r.receipt_connector IS NOT NULL AND coalesce(l.reroute->'from' ? r.receipt_connector, false))
         -- An outcome of a claim whose lease ran out and that was claimed again since belongs to the newer claim.
         AND (r.attempt IS NULL OR l.attempts = r.attempt)${claimed ? CLAIM_KEPT : ''}
     ),
     change AS MATERIALIZED (
       SELECT a.*, CASE WHEN a.rerouted THEN 'sending' ELSE a.outcome END AS new_status,
         -- What the client is not told is kept in the history as ignored entries: no callback comes of them (a
         -- rerouted attempt's entries; a second sent entry, the transition's first).
         CASE WHEN a.rerouted
           THEN (SELECT jsonb_agg(e || '{"ignored": true, "rerouted": true}'::jsonb ORDER BY n)
             FROM jsonb_array_elements(a.told) WITH ORDINALITY AS x(e, n))
           WHEN a.resent THEN jsonb_set(a.told, '{0}', (a.told->0) || '{"ignored": true, "rerouted": true}')
           ELSE a.told END AS h,
         -- The history as stored, where it leaves out what the row says (historyOf): the first attempt's sent entry
         -- as {"status": "sent"} (its time the row's sent_at, its connector the first attempt's) and a final entry
         -- without its time (the row's status_at). NULL: stored as told. Each later version of the row writes some
         -- 60 bytes less, the final one some 30.
         -- (The transition's entries are the told ones' last: its first is theirs when nothing was put before it.)
         CASE WHEN a.rerouted OR a.resent THEN NULL
           WHEN a.sent_said AND jsonb_array_length(a.told) = jsonb_array_length(a.history)
             THEN jsonb_set(CASE WHEN a.final_said THEN jsonb_set(a.told, '{-1}', (a.told->-1) - 'at') ELSE a.told END,
               '{0}', '{"status": "sent"}')
           WHEN a.final_said THEN jsonb_set(a.told, '{-1}', (a.told->-1) - 'at') END AS stored
       FROM applies a
     ),
     moved AS (
       UPDATE messages m
       SET status = c.new_status,
           status_at = CASE WHEN c.rerouted OR (c.status IN ('read', 'unread') AND m.status = 'delivered')
             THEN m.status_at ELSE c.at END,
           lease_expires_at = NULL,
           price_final = m.price_final OR c.new_status <> 'sending',
           price_refunded = m.price_refunded OR (c.new_status = 'unsent' AND m.price > 0),
           error_code = CASE WHEN c.rerouted THEN m.error_code ELSE coalesce(c.error_code, m.error_code) END,
           reroute = CASE WHEN c.rerouted THEN jsonb_build_object(
               'from', coalesce(m.reroute->'from', '[]'::jsonb) || to_jsonb(c.via),
               'status', c.status, 'errorCode', c.error_code)
             ELSE m.reroute END,
           parts_delivered = CASE WHEN c.rerouted THEN 0 ELSE m.parts_delivered END,
           connector_id = coalesce(c.connector_id, m.connector_id),
           route_id = coalesce(c.route_id, m.route_id),
           -- A rerouted message's carriers are each paid for what they took: the attempts' prices add up (in one
           -- currency; else the last attempt's stands).
           buy_price = CASE WHEN c.sent_again AND m.buy_currency = c.buy_currency THEN m.buy_price + c.buy_price
             ELSE coalesce(c.buy_price, m.buy_price) END,
           buy_currency = coalesce(c.buy_currency, m.buy_currency),
           -- The first sending's time stays the message's sent time: sent again after a reroute, with its receipt
           -- or not, it keeps it (a first sent entry stored without its time shows this one: historyOf).
           sent_at = coalesce(m.sent_at, c.sent_at,
             CASE WHEN c.new_status IN ('delivered', 'undelivered') THEN c.at END),
           read_status = CASE WHEN c.status IN ('read', 'unread') THEN c.status ELSE m.read_status END,
           due_at = CASE
             WHEN c.rerouted THEN c.at
             WHEN c.due_at IS NOT NULL THEN c.due_at
             WHEN c.new_status = 'sent'
               OR (c.status = 'delivered' AND m.read_status IS NULL AND (m.channel_type = ANY($1::text[])
                 OR (m.channel_type = 'TELEGRAM' AND m.content->>'contentType' = 'code')))
               THEN coalesce(m.expires_at, c.at + make_interval(secs => coalesce(m.ttl, $2)))
             ELSE NULL END,
           -- A wait for the same reason as the last entry's (a connector down, a closed window: a retry every 2 s
           -- for hours) keeps that entry, from when it started, with the next try: one entry, not one per round.
           history = CASE WHEN c.new_status = 'sending' AND jsonb_array_length(c.h) = 1
               AND m.history->-1->>'status' = 'sending' AND m.history->-1->>'retryAt' IS NOT NULL
               AND m.history->-1->'detail' = c.h->0->'detail'
             THEN jsonb_set(m.history, '{-1,retryAt}', c.h->0->'retryAt')
             ELSE m.history || coalesce(c.stored, c.h) END
       -- In the global lock order (the first run locks the rows here, as it updates them).
       FROM (SELECT * FROM change ORDER BY account_id, id) c
       -- The span of the batch's ids leaves the plan only their partitions, where an update of messages planned
       -- every partition's (each with the whole SET list) on every call, however many weeks the retention keeps.
       -- A row changed since it was read is left alone: waited for, it is rechecked as its new version.
       WHERE m.tableoid = c.part AND m.ctid = c.row_id AND m.xmin = c.row_xmin AND m.id BETWEEN $3::uuid AND $4::uuid
       RETURNING m.account_id, m.id, m.created_at, m.channel_type, m.callback_target_id, m.callback_events,
         m.cascade_id, m.cascade_step, m.status, m.read_status,
         m.total_parts, m.currency, m.price, c.new_status = 'unsent' AND m.price > 0 AND NOT c.was_refunded AS refund,
         NOT c.was_final AND c.new_status <> 'sending' AS price_now_final, c.rerouted,
         c.h->0->>'status' = 'unsent' AS unsent_at_once, c.at, c.h
     ),
     -- The submissions (the first run's of the messages it moved: the rest go with them in the second run).
     parts AS (
       INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at, buy_price)
       SELECT p.connector_id, p.carrier_id, p.account_id, p.message_id, p.part, p.parts, p.at, p.buy_price
       FROM p
       ${lock ? 'ON CONFLICT (connector_id, carrier_id) DO NOTHING' : FIRST_RUN_SUBMISSION}
     ),${polled ? pollsCte(lock) : ''}${requeued ? `\n     ${claimsReleaseCte('moved')},` : ''}
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
     -- Raced: the change applied to the version read, but the update did not reach it (see messageApplyTransitions).
     SELECT r.id, NULL::json AS step, false AS rerouted, EXISTS (SELECT 1 FROM change c WHERE c.id = r.id) AS raced
     FROM r WHERE NOT EXISTS (SELECT 1 FROM moved WHERE moved.id = r.id)
     UNION ALL
     SELECT mv.id, ${STEP_OUTCOME_JSON} AS step, false, false FROM moved mv WHERE ${STEP_ENDED}
     UNION ALL
     SELECT mv.id, NULL, true, false FROM moved mv WHERE mv.rerouted`),
    [
      READ_TRACKED_LIST,
      DEFAULT_TTL,
      ...messageIdSpan(rows),
      // In no order: the statement takes its locks of messages (messagesByKey, the update's sort) and balances
      // (REFUNDS) in the global order in SQL.
      ...columnValues(TRANSITION_COLUMNS, rows),
      ...columnValues(PART_COLUMNS, parts),
    ],
  );
  const unmoved = new Set<string>();
  const raced = new Set<string>();
  for (const row of result) {
    if (row.rerouted) rerouted?.push(row.id);
    else if (row.step) ended?.push(stepOutcomeOf(row.id, row.step));
    else {
      unmoved.add(row.id);
      if (row.raced) raced.add(row.id);
    }
  }
  return { unmoved, raced };
}

/** How many times a locked run is made again for messages a concurrent change kept from its update. */
const RACED_RUNS = 5;

/**
 * The statement, its rows locked first. A row whose lock waited for a concurrent change is read (and decided on) as
 * that change left it, but the update, bound to the statement's snapshot, cannot see that version: such messages
 * (raced) run again, in a statement of their own whose snapshot sees it and whose lock, already held, does not wait.
 * Their submissions were recorded by the first statement (ON CONFLICT DO NOTHING).
 */
async function lockedRun(db: Queryable, batch: Batch): Promise<Set<string>> {
  const first = await applyStatement(db, batch, true);
  const unmoved = first.unmoved;
  let raced = first.raced;
  for (let run = 1; raced.size > 0 && run <= RACED_RUNS; run++) {
    const again = await applyStatement(db, batchOf(batch, raced, false), true);
    for (const id of raced) if (!again.unmoved.has(id)) unmoved.delete(id);
    raced = again.raced;
  }
  return unmoved;
}

/**
 * The first run's condition on a part: its message moved, or has no transition in the batch; and a carrier id
 * already recorded keeps its first message (as ON CONFLICT does).
 */
const FIRST_RUN_PART = '(p.message_id IN (SELECT id FROM moved) OR p.message_id NOT IN (SELECT id FROM r))';
const FIRST_RUN_SUBMISSION = `WHERE ${FIRST_RUN_PART}
         AND NOT ${submissionRecorded('p')}`;

/** The polled parts of a batch's submissions, asked about from their submission on. */
const pollsCte = (lock: boolean): string => `
     polls AS (
       INSERT INTO submission_polls (connector_id, carrier_id, next_at, poll_until)
       SELECT p.connector_id, p.carrier_id, p.at, p.poll_until
       FROM p
       WHERE p.poll_until IS NOT NULL${lock ? '' : `\n         AND ${FIRST_RUN_PART}`}
       ON CONFLICT DO NOTHING
     ),`;

/** The refunds of moved messages, per account and currency, in the lock order of balances. */
const REFUNDS = `(SELECT account_id, currency, sum(price) AS amount, max(at) AS at FROM moved WHERE refund
  GROUP BY account_id, currency ORDER BY account_id, currency)`;

/** The condition of `applies` on an outcome that names its claim record: the record is still there (claims_kept). */
const CLAIM_KEPT = '\n         AND (r.claim IS NULL OR r.claim IN (SELECT id FROM claims_kept))';

/**
 * The messages a batch names (`keys`: a relation of account_id and id), its `columns` of each: one probe of the
 * primary key a key, in the global lock order (locked so when `lock`), within the span of the batch's ids (`span`:
 * the parameters of messageIdSpan's bounds). The span leaves the plan only its partitions, where a read by key alone
 * planned and opened every partition kept (a year of weeks: 8 ms a 1000-message lock, 4 with the span); the LIMIT
 * keeps the lateral a loop: joined, the planner took the span's rows, every account's, to hash them instead.
 */
function messagesByKey(keys: string, columns: string, span: readonly [string, string], lock: boolean): string {
  return `SELECT m.* FROM (SELECT account_id, id FROM ${keys} ORDER BY account_id, id) k
       CROSS JOIN LATERAL (
         SELECT ${columns} FROM messages m
         WHERE m.account_id = k.account_id AND m.id = k.id AND m.id BETWEEN ${span[0]}::uuid AND ${span[1]}::uuid
         LIMIT 1${lock ? ' FOR UPDATE' : ''}
       ) m`;
}

/**
 * The update's condition on a row its statement locked: by key, within the span (its partitions alone are planned).
 * Not by the ctid the lock gave: a lock that waited for a concurrent change gives that change's version, which the
 * update, bound to the statement's snapshot, cannot see (it finds the version it sees by key and follows it there).
 */
const AT_KEY = 'm.account_id = l.account_id AND m.id = l.id AND m.id BETWEEN $1::uuid AND $2::uuid';

/** A receipt, duplicate or late, that changed nothing: noted in its message's history as ignored. */
export interface IgnoredReceipt {
  readonly accountId: number;
  readonly id: string;
  readonly status: string;
  readonly at: Date;
}

/** Ignored receipts as messageNoteIgnored reads them (after the span of their ids, $1-$2), each with its place. */
const IGNORED_COLUMNS: readonly ArrayColumn<{ readonly note: IgnoredReceipt; readonly i: number }>[] = [
  { name: 'account_id', type: 'bigint', value: (r) => r.note.accountId },
  { name: 'id', type: 'uuid', value: (r) => r.note.id },
  { name: 'status', type: 'text', value: (r) => r.note.status },
  { name: 'at', type: 'timestamptz', value: (r) => isoMs(r.note.at) },
  { name: 'i', type: 'integer' },
];
const IGNORED_SELECT = unnestSelect(IGNORED_COLUMNS, 3, 'n');

/** Newly delivered parts of a multi-part message, by the connector that sent them. */
interface DeliveredParts {
  readonly accountId: number;
  readonly id: string;
  readonly connectorId: string;
  readonly parts: number;
}

/** Delivered parts as messageCountDeliveredParts reads them (after the span of their ids, $1-$2). */
const DELIVERED_PARTS_COLUMNS: readonly ArrayColumn<DeliveredParts>[] = [
  { name: 'account_id', type: 'bigint', value: (c) => c.accountId },
  { name: 'id', type: 'uuid' },
  { name: 'connector_id', type: 'text', value: (c) => c.connectorId },
  { name: 'parts', type: 'integer' },
];
const DELIVERED_PARTS_SELECT = unnestSelect(DELIVERED_PARTS_COLUMNS, 3, 'r');

/** Notes receipts that changed nothing (late or duplicate) in their messages' history, marked `ignored`. */
export async function messageNoteIgnored(db: Queryable, notes: readonly IgnoredReceipt[]): Promise<void> {
  if (notes.length === 0) return;
  await db.query(
    `WITH r AS (
       SELECT account_id, id,
         jsonb_agg(jsonb_build_object('status', status, 'at', at, 'ignored', true) ORDER BY i) AS entries
       FROM (${IGNORED_SELECT}) n
       GROUP BY account_id, id
     ),
     locked AS MATERIALIZED (${messagesByKey('r', 'm.account_id, m.id', ['$1', '$2'], true)})
     UPDATE messages m SET history = m.history || r.entries
     FROM r JOIN locked l ON l.account_id = r.account_id AND l.id = r.id
     WHERE ${AT_KEY}`,
    [
      ...messageIdSpan(notes),
      ...columnValues(
        IGNORED_COLUMNS,
        notes.map((note, i) => ({ note, i })),
      ),
    ],
  );
}

/**
 * Counts newly delivered parts of multi-part messages and returns the messages whose every part is delivered.
 * Messages are locked in the global order (account, id).
 */
export async function messageCountDeliveredParts(
  db: Queryable,
  counts: readonly DeliveredParts[],
): Promise<{ account_id: number; id: string; connector_id: string }[]> {
  if (counts.length === 0) return [];
  const rows = await db.query<{ account_id: number; id: string; connector_id: string; complete: boolean }>(
    `WITH r AS (${DELIVERED_PARTS_SELECT}),
     locked AS MATERIALIZED (${messagesByKey('r', 'm.account_id, m.id', ['$1', '$2'], true)})
     UPDATE messages m SET parts_delivered = m.parts_delivered + r.parts
     FROM r JOIN locked l ON l.account_id = r.account_id AND l.id = r.id
     WHERE ${AT_KEY}
       -- Parts of an attempt a reroute abandoned (DESIGN 21) count for nothing.
       AND NOT coalesce(m.reroute->'from' ? r.connector_id, false)
     RETURNING m.account_id, m.id, r.connector_id, m.parts_delivered >= m.total_parts AS complete`,
    [...messageIdSpan(counts), ...columnValues(DELIVERED_PARTS_COLUMNS, counts)],
  );
  return rows.filter((r) => r.complete);
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
    `WITH k AS (SELECT * FROM unnest($1::bigint[], $2::uuid[]) AS k(account_id, id))
     ${messagesByKey('k', '1', ['$3', '$4'], true)}`,
    [messages.map((m) => m.accountId), messages.map((m) => m.id), ...messageIdSpan(messages)],
  );
}
