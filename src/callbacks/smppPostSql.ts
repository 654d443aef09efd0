import type { Queryable } from '../db/db.js';
import { inPost } from './postRange.js';

/**
 * The callback URL that stands for "this account's SMPP binds" (DESIGN 22): a message submitted over SMPP with
 * registered_delivery, and an inbound SMS of an account with `inboundVia: ["smpp"]`, have it as their callback
 * target, so that their events are formed by the statements that change statuses, like every callback's. Their
 * POSTs are formed by the callback sender as any (marked `via_smpp`, never due for HTTP: see callbackPostsForm) and
 * delivered by the SMPP server of a process that holds a receiver bind of the account, one deliver_sm per event.
 */
export const SMPP_BINDS_URL = 'smpp:binds';

/**
 * The same binds for the receipts of messages submitted with registered_delivery 2 (SMPP 3.4 5.2.17: a receipt only
 * when the final outcome is a failure). Their events are written as any receipt's; the SMPP server acknowledges a
 * `delivered` one without sending it (smppServer/receiptDelivery.ts), so no status statement tells the two apart.
 */
export const SMPP_FAILURE_RECEIPTS_URL = 'smpp:binds:failures';

/** The callback URLs whose POSTs the SMPP servers deliver (`via_smpp`), as an SQL list. */
export const SMPP_URLS_SQL = `('${SMPP_BINDS_URL}', '${SMPP_FAILURE_RECEIPTS_URL}')`;

/** An SMPP POST leased by a process's SMPP server. */
export interface SmppPost {
  readonly id: string;
  readonly account_id: number;
  readonly target_id: number;
  readonly lane: number;
  readonly after_txid: string;
  readonly after_event_id: number;
  readonly last_txid: string;
  readonly last_event_id: number;
  readonly only_messages: string[] | null;
  readonly excluded_messages: string[] | null;
  /** Leases so far, this one included: 1 for a POST its lane waited on (see callbackPostsForm). */
  readonly attempts: number;
  /** Its target is {@link SMPP_FAILURE_RECEIPTS_URL}: a receipt of a delivered message is not sent. */
  readonly failures_only: boolean;
  /** When this lease ends: a renewal names it (callbackSmppRenew). */
  readonly lease_until: Date;
}

/** An account's share of a claim of SMPP POSTs: at most `limit` of its POSTs. */
export interface SmppPostsShare {
  readonly accountId: number;
  readonly limit: number;
}

/**
 * Leases open SMPP POSTs of the accounts (those with a receiver bind in this process) that no other process holds,
 * until `now + leaseMs` (SKIP LOCKED: processes with binds of the same account share them): at most `room` of them,
 * each account's oldest first and at most its share's `limit`, taken in turns (every account's first before any
 * account's second, the accounts in the order given). Accounts with nothing open take no place: the places go to
 * those that have POSTs. A lease ends when its events are acknowledged, when the process gives it back (its bind
 * closed), or when it runs out (the process died). The limit keeps the POSTs of one account whose client answers
 * slowly from taking every place a process has for them (smppServer/receiptDelivery.ts).
 */
export async function callbackSmppPostsClaim(
  db: Queryable,
  shares: readonly SmppPostsShare[],
  now: Date,
  leaseMs: number,
  room: number,
): Promise<SmppPost[]> {
  if (shares.length === 0 || room <= 0) return [];
  // Rows locked by the LATERAL and not taken are left unchanged, unlocked when the transaction ends (as called here,
  // the statement's own).
  return db.query<SmppPost>(
    `WITH open AS (
       SELECT p.id, a.turn, row_number() OVER (PARTITION BY a.turn ORDER BY p.created_at, p.id) AS nth
       FROM unnest($1::bigint[], $4::int[]) WITH ORDINALITY AS a(account_id, share, turn)
       CROSS JOIN LATERAL (
         SELECT d.id, d.created_at FROM callback_deliveries d
         WHERE d.state = 'open' AND d.via_smpp AND d.account_id = a.account_id
           AND (d.smpp_lease_until IS NULL OR d.smpp_lease_until <= $2)
         ORDER BY d.created_at, d.id
         LIMIT a.share
         FOR UPDATE OF d SKIP LOCKED
       ) p
     ), due AS (
       SELECT id FROM open ORDER BY nth, turn LIMIT $6
     )
     UPDATE callback_deliveries d SET smpp_lease_until = $3, attempts = d.attempts + 1, last_attempt_at = $2
     FROM due WHERE d.id = due.id
     RETURNING d.id, d.account_id::int AS account_id, d.target_id, d.lane, d.after_txid::text AS after_txid,
       d.after_event_id, d.last_txid::text AS last_txid, d.last_event_id, d.only_messages, d.excluded_messages,
       d.attempts, (SELECT t.url FROM callback_targets t WHERE t.id = d.target_id) = $5 AS failures_only,
       d.smpp_lease_until AS lease_until`,
    [
      shares.map((s) => s.accountId),
      now,
      new Date(now.getTime() + leaseMs),
      shares.map((s) => s.limit),
      SMPP_FAILURE_RECEIPTS_URL,
      room,
    ],
  );
}

/** An event of an SMPP POST: what its deliver_sm says besides its message's facts (messages/ has those). */
export interface SmppEvent {
  readonly event_id: number;
  readonly account_id: number;
  readonly message_id: string;
  readonly event: string;
  readonly status: string | null;
  readonly at: Date;
  readonly error_code: number | null;
}

/**
 * The events of leased SMPP POSTs that no deliver_sm_resp acknowledged yet, per POST in order: one statement for a
 * claim's POSTs (a POST carries as few as a forming round found, a dozen under load).
 */
export async function callbackSmppPostEvents(
  db: Queryable,
  posts: readonly SmppPost[],
): Promise<Map<string, SmppEvent[]>> {
  const byPost = new Map<string, SmppEvent[]>(posts.map((p) => [p.id, []]));
  if (posts.length === 0) return byPost;
  const rows = await db.query<SmppEvent & { delivery_id: string }>(
    `SELECT d.id AS delivery_id, e.id::bigint AS event_id, e.account_id::int AS account_id, e.message_id, e.event,
       e.status, e.at, e.error_code
     FROM callback_deliveries d
     JOIN callback_events e ON ${inPost('e', 'd')}
     WHERE d.id = ANY($1::uuid[])
       AND NOT EXISTS (SELECT 1 FROM smpp_receipt_acks a WHERE a.delivery_id = d.id AND a.event_id = e.id)
     ORDER BY d.id, e.txid, e.id`,
    [posts.map((p) => p.id)],
  );
  for (const { delivery_id: id, ...event } of rows) byPost.get(id)!.push(event);
  return byPost;
}

/**
 * Records events of an SMPP POST as acknowledged (never sent again), and ends the POST once all its events are
 * ({@link callbackSmppEnd}). Returns whether it ended.
 */
export async function callbackSmppAck(
  db: Queryable,
  deliveryId: string,
  eventIds: readonly number[],
  now: Date,
): Promise<boolean> {
  const [row] = await db.query<{ complete: boolean }>(
    `WITH added AS (
       INSERT INTO smpp_receipt_acks (delivery_id, event_id, acked_at)
       SELECT $1, e, $3 FROM unnest($2::bigint[]) AS e
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM smpp_receipt_acks WHERE delivery_id = $1) + (SELECT count(*) FROM added)
       >= d.events AS complete
     FROM callback_deliveries d WHERE d.id = $1 AND d.state = 'open'`,
    [deliveryId, eventIds, now],
  );
  return row?.complete === true && (await callbackSmppEnd(db, [deliveryId], now)).has(deliveryId);
}

/**
 * Ends SMPP POSTs whose events are all acknowledged now or before (`delivered`, their acknowledgements deleted), in
 * one statement for many (the receipt deliveries that end while one is written go together: a POST ends a dozen
 * receipts under load) and without writing an acknowledgement per event. Returns those it ended (not those that had).
 */
export async function callbackSmppEnd(db: Queryable, deliveryIds: readonly string[], now: Date): Promise<Set<string>> {
  if (deliveryIds.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `WITH ended AS (
       UPDATE callback_deliveries SET state = 'delivered', finished_at = $2, smpp_lease_until = NULL
       WHERE id = ANY($1::uuid[]) AND state = 'open'
       RETURNING id
     ),
     forgotten AS (DELETE FROM smpp_receipt_acks WHERE delivery_id IN (SELECT id FROM ended))
     SELECT id FROM ended`,
    [deliveryIds, now],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Gives leased SMPP POSTs back: at once (`until` null: their bind closed, another bind of the account may take them)
 * or from `until` on (the client refused some events: they are tried again then). Each only while it is still the
 * lease the process took (`leases`: its end as the process set it): giving back a lease another process took when
 * this one's ran out would let a third take the POST while the second still delivers it.
 */
export async function callbackSmppRelease(
  db: Queryable,
  leases: ReadonlyMap<string, Date>,
  until: Date | null,
): Promise<void> {
  await leasesMoved(db, leases, until);
}

/**
 * Extends the leases of SMPP POSTs a process still delivers (a slow client's events waiting for room) to `until`, each
 * only while it is still the lease the process took (`leases`: its end as the process set it): a lease that ran out and
 * was taken by another process stays that one's. Returns the POSTs renewed.
 */
export async function callbackSmppRenew(
  db: Queryable,
  leases: ReadonlyMap<string, Date>,
  until: Date,
): Promise<Set<string>> {
  return leasesMoved(db, leases, until);
}

/** Sets the lease of each open POST whose lease is still the one given to `until`; returns those it set. */
async function leasesMoved(db: Queryable, leases: ReadonlyMap<string, Date>, until: Date | null): Promise<Set<string>> {
  if (leases.size === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `UPDATE callback_deliveries d SET smpp_lease_until = $3
     FROM unnest($1::uuid[], $2::timestamptz[]) AS l(id, until)
     WHERE d.id = l.id AND d.state = 'open' AND d.smpp_lease_until = l.until
     RETURNING d.id`,
    [[...leases.keys()], [...leases.values()], until],
  );
  return new Set(rows.map((r) => r.id));
}

/** Events waiting for the accounts' binds (in open SMPP POSTs, less those acknowledged), for metrics and lists. */
export async function callbackSmppWaiting(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT (coalesce(sum(d.events), 0) - (SELECT count(*) FROM smpp_receipt_acks))::int AS n
     FROM callback_deliveries d WHERE d.state = 'open' AND d.via_smpp`,
  );
  return row!.n;
}
