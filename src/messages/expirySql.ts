import type { Queryable } from '../db/db.js';
import { statusEventsCte } from '../callbacks/index.js';
import { dirtyDaysCte } from '../db/dirtyDaysSql.js';
import { NIL_UUID } from './messagePartitions.js';
import { STEP_ENDED, STEP_OUTCOME_JSON, type StepOutcome, type StepOutcomeRow, stepOutcomeOf } from './stepOutcomes.js';

/* The ends of lifetimes: a sent message that got no final receipt, a delivered one that was never read. */

/**
 * When the next lifetime runs out (the first entry of `messages_waiting_due`), or null when none is running: the
 * job looks before it opens a transaction, so that an idle pass is one statement, and knows how long it may rest.
 * Ids from `floor` on, as the claim's (QueueFloor): the plan holds only the partitions from there.
 */
export async function messageNextExpiry(db: Queryable, floor = NIL_UUID): Promise<Date | null> {
  const [row] = await db.query<{ due_at: Date }>(
    `SELECT due_at FROM messages WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND id >= $1
     ORDER BY due_at LIMIT 1`,
    [floor],
  );
  return row?.due_at ?? null;
}

/**
 * Ends the waits that have run out at the end of a message's lifetime: `sent` without a final receipt ->
 * `undelivered` (error `noReceipt`); `delivered` on a read-tracked channel without a read -> read status `unread`
 * (its status stays `delivered`, with no error: the `read` event carries the message's error code, as every status
 * event does, so the two never disagree). The earliest due first, by id among those due at the same instant (an
 * index scan of `messages_waiting_due` that stops at the limit); rows other workers hold are skipped. Returns what
 * each message reached: a status or `unread`. Ids from `floor` on, as {@link messageNextExpiry}.
 */
export async function messageExpireDue(
  db: Queryable,
  now: Date,
  limit: number,
  errors: { noReceipt: number },
  ended?: StepOutcome[],
  floor = NIL_UUID,
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
       WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND due_at <= $1 AND id >= $4
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
       WHERE m.account_id = due.account_id AND m.id = due.id AND m.id >= $4
       RETURNING m.account_id, m.id, m.created_at, due.outcome, m.channel_type, m.callback_target_id, m.callback_events,
         m.cascade_id, m.cascade_step, m.status, m.read_status, $1::timestamptz AS at, jsonb_build_array(
           jsonb_strip_nulls(
             jsonb_build_object('status', due.outcome, 'at', $1::timestamptz, 'errorCode', due.error_code))) AS h
     ),
     ${statusEventsCte('moved')},
     ${dirtyDaysCte('moved')}
     SELECT mv.account_id, mv.id, mv.outcome, CASE WHEN ${STEP_ENDED} THEN ${STEP_OUTCOME_JSON} END AS step
     FROM moved mv`,
    [now, limit, errors.noReceipt, floor],
  );
  for (const row of rows) if (row.step) ended?.push(stepOutcomeOf(row.id, row.step));
  return rows.map(({ account_id, id, outcome }) => ({ account_id, id, outcome }));
}
