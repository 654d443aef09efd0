import type { Queryable } from '../db/db.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/index.js';
import { messageApplyTransitions } from './transitionSql.js';
import { messageClaimsHold, messageLeasedSql } from './claimSql.js';
import { statusTransition } from './transitions.js';

/*
 * The statements on the messages of dispatches (dispatches/ runs the dispatches; the messages are this capability's):
 * schedule the held ones when a dispatch starts or resumes, hold them again on a pause, stop them, count them.
 */

/**
 * Plans the held messages of a dispatch without a send window from `start`, one every `spacingMs` in the order they
 * were added (the speed spread evenly), in one statement: each is due then, planned then, and lives its ttl from
 * then; its send deadline is the earlier of that and the deadline it was stored with (a resume keeps the lifetime
 * its start gave). A dispatch with a window is planned message by message (held,
 * plan). Returns how many were scheduled.
 */
export async function schedule(
  tx: Queryable,
  accountId: number,
  dispatchId: string,
  start: Date,
  spacingMs: number,
): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    `WITH locked AS (
       SELECT id FROM messages
       WHERE account_id = $1 AND dispatch_id = $2 AND status = 'sending' AND due_at = 'infinity'
       ORDER BY id
       FOR UPDATE
     ),
     held AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM locked),
     planned AS (
       SELECT id, $3::timestamptz + make_interval(secs => n * $4::float8 / 1000) AS at FROM held
     )
     UPDATE messages m
     SET due_at = p.at, planned_send_at = p.at,
       expires_at = p.at + make_interval(secs => coalesce(m.ttl, $5)),
       deadline_at = least(m.deadline_at, p.at + make_interval(secs => coalesce(m.ttl, $5)))
     FROM planned p
     WHERE m.account_id = $1 AND m.id = p.id
     RETURNING m.id`,
    [accountId, dispatchId, start, spacingMs, DEFAULT_TTL_SECONDS],
  );
  return rows.length;
}

/** A held message of a dispatch, with what its plan is made of: its subscriber and its window fields. */
export interface HeldMessage {
  readonly id: string;
  readonly destination: string;
  readonly country: string | null;
  readonly useLocalTime: boolean;
  readonly localSendTime: string | null;
  readonly localCompletionTime: string | null;
  readonly hours: number[] | null;
  readonly days: number[] | null;
  readonly ttl: number | null;
  /** Its completion deadline before its first start; the deadline its start gave, on a resume. */
  readonly deadlineAt: Date;
}

/**
 * Up to `limit` of a dispatch's held messages after `after`, in the order they were added: call again after the
 * last until fewer come. Not locked: the caller holds its dispatch FOR UPDATE (no add, step or stop of it
 * meanwhile), and plan writes only messages still held (a message stopped by its uuid meanwhile is
 * left as it is).
 */
export async function held(
  tx: Queryable,
  accountId: number,
  dispatchId: string,
  after: string | null,
  limit: number,
): Promise<HeldMessage[]> {
  return tx.query<HeldMessage>(
    `SELECT id, destination, country, use_local_time AS "useLocalTime", local_send_time AS "localSendTime",
       local_completion_time AS "localCompletionTime", hours, days, ttl, deadline_at AS "deadlineAt"
     FROM messages
     WHERE account_id = $1 AND dispatch_id = $2 AND status = 'sending' AND due_at = 'infinity'
       AND ($3::uuid IS NULL OR id > $3)
     ORDER BY id LIMIT $4`,
    [accountId, dispatchId, after, limit],
  );
}

/** The plan of one held message (see plan). */
export interface HeldPlan {
  readonly id: string;
  readonly dueAt: Date;
  /** Null: its window never opens before its deadline (it ends unsent, 9002, when the submitter takes it). */
  readonly plannedSendAt: Date | null;
  readonly deadlineAt: Date;
  readonly expiresAt: Date;
}

/** Writes the plans of held messages (of one account), in one statement. */
export async function plan(tx: Queryable, accountId: number, plans: readonly HeldPlan[]): Promise<void> {
  if (plans.length === 0) return;
  await tx.query(
    `UPDATE messages m
     SET due_at = p.due_at, planned_send_at = p.planned_send_at, deadline_at = p.deadline_at, expires_at = p.expires_at
     FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[])
       AS p(id, due_at, planned_send_at, deadline_at, expires_at)
     WHERE m.account_id = $1 AND m.id = p.id AND m.status = 'sending' AND m.due_at = 'infinity'`,
    [
      accountId,
      plans.map((p) => p.id),
      plans.map((p) => p.dueAt),
      plans.map((p) => p.plannedSendAt),
      plans.map((p) => p.deadlineAt),
      plans.map((p) => p.expiresAt),
    ],
  );
}

/**
 * Holds a paused dispatch's messages that wait in the queue (not those being handed to a carrier now, whose lease
 * must stay able to run out): never due until scheduled again. Returns how many.
 */
export async function hold(tx: Queryable, accountId: number, dispatchId: string, now: Date): Promise<number> {
  // A message a claim is taking is in a worker's hands: its record is seen once the claim commits.
  await messageClaimsHold(tx);
  const rows = await tx.query<{ id: string }>(
    `UPDATE messages SET due_at = 'infinity'
     WHERE account_id = $1 AND dispatch_id = $2 AND status = 'sending' AND due_at <> 'infinity'
       AND NOT ${messageLeasedSql('messages', '$3')}
     RETURNING id`,
    [accountId, dispatchId, now],
  );
  return rows.length;
}

/**
 * Stops up to `limit` of a dispatch's messages that wait in the queue, those after `after` in id order: they become
 * unsent, refunded, with their callbacks. Returns how many were looked at and the last id (call again after it until
 * fewer than `limit`): each call goes on where the last one ended, so stopping a million messages reads each once,
 * not the stopped ones again per batch.
 */
export async function stop(
  tx: Queryable,
  accountId: number,
  dispatchId: string,
  now: Date,
  errorCode: number,
  limit: number,
  after: string | null,
): Promise<{ taken: number; last: string | null }> {
  await messageClaimsHold(tx);
  const waiting = await tx.query<{ id: string }>(
    `SELECT id FROM messages
     WHERE account_id = $1 AND dispatch_id = $2 AND status = 'sending'
       AND NOT ${messageLeasedSql('messages', '$3')} AND ($5::uuid IS NULL OR id > $5)
     ORDER BY id LIMIT $4
     FOR UPDATE`,
    [accountId, dispatchId, now, limit, after],
  );
  await messageApplyTransitions(
    tx,
    waiting.map((w) =>
      statusTransition({ accountId, id: w.id, status: 'unsent', at: now, errorCode, detail: 'dispatch stopped' }),
    ),
  );
  return { taken: waiting.length, last: waiting.at(-1)?.id ?? after };
}

/** A paused or stopped dispatch's messages that are not settled yet (see unsettled). */
export interface Unsettled {
  /** Messages still in `sending` that a worker may send: for a pause, those not held. */
  readonly left: number;
  /** Of those, in a worker's hand: claimed, with a lease that has not run out, outcome not yet recorded. */
  readonly inHand: number;
  /** The latest end of those leases, or null. */
  readonly leasedUntil: Date | null;
}

/**
 * What a pause (`heldToo` false: held messages are settled) or a stop (`heldToo` true: every message in `sending`)
 * still waits for: the dispatch is settled when `left` is 0, since then no message of it can be claimed again.
 * A pause's look reads the index of messages not held (messages_dispatch_unheld), a stop's that of its messages
 * by status.
 */
export async function unsettled(
  db: Queryable,
  accountId: number,
  dispatchId: string,
  now: Date,
  heldToo: boolean,
): Promise<Unsettled> {
  const [row] = await db.query<{ left: number; in_hand: number; leased_until: Date | null }>(
    `WITH claims AS MATERIALIZED (
       SELECT unnest(ids) AS id, lease_expires_at FROM message_claims WHERE lease_expires_at > $3
     )
     SELECT count(*)::int AS left,
       (count(*) FILTER (WHERE m.lease_expires_at > $3 OR c.id IS NOT NULL))::int AS in_hand,
       max(greatest(CASE WHEN m.lease_expires_at > $3 THEN m.lease_expires_at END, c.lease_expires_at)) AS leased_until
     FROM messages m LEFT JOIN claims c ON c.id = m.id
     WHERE m.account_id = $1 AND m.dispatch_id = $2 AND m.status = 'sending'${
       heldToo ? '' : " AND m.due_at <> 'infinity'"
     }`,
    [accountId, dispatchId, now],
  );
  return { left: row!.left, inHand: row!.in_hand, leasedUntil: row!.leased_until };
}

/** A dispatch's messages and parts by status. */
export interface DispatchCount {
  dispatch_id: string;
  status: string;
  messages: number;
  parts: number;
  /** Of those in sending: held until the dispatch starts or resumes. */
  held: number;
  /** Of those in sending: planned for later (their window is ahead), not held, not leased. */
  later: number;
}

export async function counts(
  db: Queryable,
  accountId: number,
  dispatchIds: readonly string[],
  now: Date,
): Promise<DispatchCount[]> {
  if (dispatchIds.length === 0) return [];
  return db.query<DispatchCount>(
    `SELECT dispatch_id, status, count(*)::int AS messages, sum(total_parts)::int AS parts,
       (count(*) FILTER (WHERE status = 'sending' AND due_at = 'infinity'))::int AS held,
       (count(*) FILTER (WHERE status = 'sending' AND due_at > $3 AND due_at <> 'infinity'
         AND (lease_expires_at IS NULL OR lease_expires_at <= $3)))::int AS later
     FROM messages WHERE account_id = $1 AND dispatch_id = ANY($2::uuid[])
     GROUP BY dispatch_id, status`,
    [accountId, dispatchIds, now],
  );
}

/**
 * Whether each dispatch has a message in `sending`, and one in `sent`: two index probes a dispatch, however many
 * messages it has (a finished dispatch's status needs no count).
 */
export async function activity(
  db: Queryable,
  accountId: number,
  dispatchIds: readonly string[],
): Promise<Map<string, { sending: boolean; sent: boolean }>> {
  if (dispatchIds.length === 0) return new Map();
  const rows = await db.query<{ id: string; sending: boolean; sent: boolean }>(
    `SELECT d.id,
       EXISTS (SELECT 1 FROM messages m WHERE m.account_id = $1 AND m.dispatch_id = d.id AND m.status = 'sending')
         AS sending,
       EXISTS (SELECT 1 FROM messages m WHERE m.account_id = $1 AND m.dispatch_id = d.id AND m.status = 'sent') AS sent
     FROM unnest($2::uuid[]) AS d(id)`,
    [accountId, dispatchIds],
  );
  return new Map(rows.map((r) => [r.id, { sending: r.sending, sent: r.sent }]));
}
