import { genericPlan, isDb, type Queryable } from '../db/db.js';
import { type Channel, CHANNELS } from '../shared/channels.js';
import { TRAFFIC_TYPES, type TrafficType } from '../shared/trafficTypes.js';
import { EVERY_ID, type MessageIdRange } from './messagePartitions.js';

/* The queue's claim: what a submitter takes to send, and when the next message falls due. */

/** A message claimed for sending, with what sending it needs. */
export interface ClaimedMessage {
  account_id: number;
  id: string;
  channel_type: Channel;
  sender_name: string;
  destination: string;
  country: string | null;
  /** The number's operator when it was generated (the portability base's for a ported number): routes match it. */
  brand: string | null;
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
  /**
   * The claim record that took it (message_claims), or null for the fast lane's messages, leased in their rows:
   * its outcomes name it, and it goes once they are all written (messageClaimsEnd).
   */
  claim_id: number | null;
  /** The cascade the message is a step of (its outcome may create the next step), or null. */
  cascade_id: string | null;
  traffic_type: TrafficType;
  /** Set when a carrier's failure rerouted it (DESIGN 21): the connectors not to try again, the failure to end with. */
  reroute: Reroute | null;
}

/** A rerouted message's record (messages.reroute). */
export interface Reroute {
  readonly from: readonly string[];
  readonly status: 'undelivered' | 'unsent';
  readonly errorCode: number | null;
}

/** Traffic types in the order due messages are claimed; the first two are urgent (see messageClaimDue). */
const CLAIM_ORDER = TRAFFIC_TYPES;

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
 * The advisory lock that serialises claims (see messageClaimDue): this key and the schema's (an advisory lock is the
 * database's, and each Herald of a shared database has a schema of its own: they do not wait for each other).
 */
export const CLAIM_LOCK = 0x48_43_4c_4d; // 'HCLM'
const CLAIM_LOCK_KEYS = '$1::int, hashtext(current_schema())';

/**
 * Waits for a claim being made to commit, and keeps new ones from starting until the caller's transaction ends: a
 * statement that leaves the messages in a worker's hands alone ({@link messageLeasedSql}) must see the record of every
 * claim of the rows it reads. A claim changes no row, so a statement that waited for its row locks would read them
 * as it left them and miss its record, written after that statement's snapshot.
 */
export async function messageClaimsHold(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock_shared(${CLAIM_LOCK_KEYS})`, [CLAIM_LOCK]);
}

/** The ids of the messages held by claim records whose lease has not run out at `now` (a parameter or expression). */
export const claimedIdsSql = (now: string): string =>
  `SELECT unnest(ids) FROM message_claims WHERE lease_expires_at > ${now}`;

/**
 * Whether the message `alias` is in a worker's hands at `now`: leased in its row (the fast lane, messageSql.ts) or
 * held by a claim record. For statements that leave such messages alone (a stop, a pause) or count them.
 */
export const messageLeasedSql = (alias: string, now: string): string =>
  `(coalesce(${alias}.lease_expires_at > ${now}, false) OR ${alias}.id IN (${claimedIdsSql(now)}))`;

/**
 * A CTE `claims_kept`: the claim records the outcomes of `source` (rows with a `claim`) name that are still there,
 * locked against a claim deleting them. A claim deletes a record whose lease ran out before it takes its messages
 * again; an outcome of the first claim written after that (a stalled process) is stale and must not apply. Locked,
 * the check cannot pass while such a claim commits: it waits for it and then finds the record gone.
 */
export const claimsKeptCte = (source: string): string =>
  `claims_kept AS MATERIALIZED (
       SELECT c.id FROM message_claims c
       WHERE c.id IN (SELECT DISTINCT s.claim FROM ${source} s WHERE s.claim IS NOT NULL)
       FOR KEY SHARE
     )`;

/**
 * A CTE that takes the messages of `moved` (a statement's updated rows, with their new status) that went back to the
 * queue (status `sending`: a retry, a receipt's reroute) out of the claim records that hold them, so that they fall
 * due at their own time, and a stop, a pause or a dispatch's stop takes them as any waiting message, instead of
 * being held until the claim's record goes.
 */
export const claimsReleaseCte = (moved: string): string =>
  `claims_released AS (
       UPDATE message_claims c SET ids = ARRAY(SELECT x FROM unnest(c.ids) AS x WHERE x <> ALL(rel.ids))
       FROM (SELECT array_agg(mv.id) AS ids FROM ${moved} mv WHERE mv.status = 'sending') rel
       WHERE rel.ids IS NOT NULL AND c.ids && rel.ids
     )`;

/**
 * Claims due messages by traffic type first (AUTHORIZE, TRANSACT, SERVICE, PROMO: an authorisation code never
 * waits behind promotions), then the earliest due (by id among those due at the same instant), within `limits`:
 * per channel (a carrier that is slow or down fills its channel's share of a worker's hands, not every place) and
 * in all. One index range scan of `messages_sending_due` per channel and type, each stopping at what is left of
 * its channel's limit, however many messages of later types or of a full channel wait. Only the ids of `ids` are
 * read ({@link QueueFloor.ids}; by default every id): the plan holds only the partitions of that span. Returned in
 * claim order.
 *
 * A claim is one row of message_claims (its lease and the ids it took), not a new version of each message it takes
 * (docs/scaling.md, "The claim as one record"): the messages stay as they are, due, and every claim skips those
 * held by a record whose lease has not run out. So that a worker that dies lets them go, a record whose lease ran out
 * is deleted by the next claim, which may take its messages again. Claims run one at a time (an advisory lock taken
 * before the statement, so that its snapshot holds every record committed before it); the rows taken are still
 * locked (SKIP LOCKED), so that a message whose outcome is being written is skipped, or read as that left it.
 * A message whose lease in its row ran out (the fast lane's) has that lease cleared and its attempts counted, so
 * that an outcome of that lease is known stale.
 *
 * `ended` are the caller's records whose messages all have their outcome: the claim deletes them as well, so that
 * ending a claim costs no statement (and no commit) of its own.
 */
export async function messageClaimDue(
  db: Queryable,
  now: Date,
  limits: ClaimLimits,
  leaseMs: number,
  ids: MessageIdRange = EVERY_ID,
  ended: readonly number[] = [],
): Promise<ClaimedMessage[]> {
  const lanes = limits.channels.filter((c) => c.any > 0);
  if (lanes.length === 0 || limits.total <= 0) {
    await messageClaimsEnd(db, ended);
    return [];
  }
  // What a channel's earlier types took of its limit; the bulk types also count against its bulk limit.
  const taken = (n: number, from = 0): string =>
    CLAIM_ORDER.slice(from, n)
      .map((_, i) => ` - (SELECT count(*) FROM t${from + i} WHERE t${from + i}.channel_type = l.channel_type)`)
      .join('');
  const left = (n: number): string =>
    n < 2 ? `l.room${taken(n)}` : `least(l.room${taken(n)}, l.bulk_room${taken(n, 2)})`;
  const perType = CLAIM_ORDER.map(
    (type, n) => `t${n} AS (
       SELECT c.*, ${n} AS rank
       FROM lane l CROSS JOIN LATERAL (
         SELECT m.tableoid AS part, m.ctid AS row_id, ${CLAIMED_COLUMNS}
         FROM messages m
         WHERE m.status = 'sending' AND m.channel_type = l.channel_type AND m.traffic_type = '${type}'
           AND m.due_at <= $1 AND m.id >= $8 AND m.id < $10 AND m.id NOT IN (SELECT h.id FROM held h)
         ORDER BY m.due_at, m.id
         LIMIT greatest(${left(n)}, 0)
         FOR UPDATE SKIP LOCKED
       ) c
     )`,
  );
  const claim = async (tx: Queryable) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEYS})`, [CLAIM_LOCK]);
    return tx.query<
      ClaimedMessage & {
        rank: number;
        part: unknown;
        row_id: unknown;
        lease: Date | null;
        due_at: Date;
        row_attempts: number;
        n: unknown;
        bulk_n: unknown;
      }
    >(
      genericPlan(`WITH
       -- Records ended (their messages all have their outcome) and those whose lease ran out go, but those an
       -- outcome statement holds (it checks its record): their messages stay held until the next claim.
       gone AS (
         DELETE FROM message_claims WHERE id IN (
           SELECT id FROM message_claims WHERE lease_expires_at <= $1 OR id = ANY($9::bigint[]) FOR UPDATE SKIP LOCKED
         ) RETURNING id
       ),
       held AS MATERIALIZED (
         SELECT unnest(ids) AS id FROM message_claims WHERE id NOT IN (SELECT id FROM gone)
       ),
       lane AS (SELECT * FROM unnest($4::text[], $5::int[], $6::int[]) AS l(channel_type, room, bulk_room)),
       ${perType.join(',\n       ')},
       ranked AS (
         SELECT u.*, row_number() OVER (ORDER BY rank, due_at, id) AS n,
           row_number() OVER (PARTITION BY rank >= 2 ORDER BY rank, due_at, id) AS bulk_n
         FROM (${CLAIM_ORDER.map((_, n) => `SELECT * FROM t${n}`).join(' UNION ALL ')}) u
       ),
       -- The limits in all: urgent types first, then by due time. Rows cut here were locked only until the commit.
       due AS MATERIALIZED (SELECT * FROM ranked WHERE n <= $2 AND (rank < 2 OR bulk_n <= $7)),
       record AS (
         INSERT INTO message_claims (lease_expires_at, ids) SELECT $3, array_agg(id) FROM due HAVING count(*) > 0
         RETURNING id
       ),
       -- A lease in the row that ran out (a fast lane's whose process stalled or died): cleared, and the attempt
       -- counted, by the TIDs of the versions just locked (the partition matched too: a TID names a row within its
       -- partition). A generic plan made while the partition was small reads the whole span of ids by its key
       -- instead, every claim: the EXISTS, on due alone, is evaluated once before the scan and skips it when no
       -- message taken had a lease.
       unleased AS (
         UPDATE messages m SET lease_expires_at = NULL, attempts = m.attempts + 1
         FROM due
         WHERE due.lease IS NOT NULL AND m.ctid = ANY(ARRAY(SELECT row_id FROM due WHERE lease IS NOT NULL))
           AND m.tableoid = due.part AND m.ctid = due.row_id AND m.id >= $8 AND m.id < $10
           AND EXISTS (SELECT 1 FROM due WHERE lease IS NOT NULL)
       )
       SELECT due.*, (SELECT id FROM record) AS claim_id,
         CASE WHEN due.lease IS NOT NULL THEN due.row_attempts + 1 ELSE due.row_attempts END AS attempts
       FROM due`),
      [
        now,
        limits.total,
        new Date(now.getTime() + leaseMs),
        lanes.map((l) => l.channel),
        lanes.map((l) => l.any),
        lanes.map((l) => l.bulk),
        limits.bulk,
        ids.from,
        ended,
        ids.to,
      ],
    );
  };
  // A transaction given is the caller's (a test's, rolled back at its end): the lock is held until it ends.
  const claimed = isDb(db) ? await db.transaction(claim) : await claim(db);
  // Urgent messages go to the connectors first.
  return claimed
    .sort((a, b) => a.rank - b.rank)
    .map(
      ({ rank: _r, part: _p, row_id: _i, lease: _l, due_at: _d, row_attempts: _a, n: _n, bulk_n: _b, ...message }) => {
        // A bigint: the driver gives it as a string.
        message.claim_id = message.claim_id === null ? null : Number(message.claim_id);
        return message;
      },
    );
}

/**
 * What a claim reads of each message it takes (`messages m`): what sending it needs, and its place in the claim's
 * order.
 */
const CLAIMED_COLUMNS = `m.account_id, m.id, m.channel_type, m.sender_name, m.destination, m.country, m.brand,
           m.content, m.total_parts, m.ttl, m.external_message_id, m.use_local_time, m.local_send_time,
           m.local_completion_time, m.hours, m.days, m.template_id,
           (extract(epoch FROM m.deadline_at) * 1000)::float8 AS deadline_ms,
           (extract(epoch FROM coalesce(m.expires_at, m.deadline_at)) * 1000)::float8 AS expires_ms,
           (extract(epoch FROM m.planned_send_at) * 1000)::float8 AS planned_send_ms, m.attempts AS row_attempts,
           m.cascade_id, m.traffic_type, m.reroute, m.due_at, m.lease_expires_at AS lease`;

/**
 * Deletes the claim records whose every message has its outcome written, when no claim is coming to do it (a
 * submitter that went idle or stops; see messageClaimDue's `ended`). Their messages have all left `sending` or left
 * the record (a retry, a reroute: claimsReleaseCte), so nothing waits for this.
 */
export async function messageClaimsEnd(db: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('DELETE FROM message_claims WHERE id = ANY($1::bigint[])', [ids]);
}

/**
 * When the next message of the queue falls due (a leased one: when its lease ends), or null when none waits (a held
 * one, due at 'infinity', is never due: left out by the index's range, not read as a time, which no Date holds): the
 * first entry of each lane of `messages_sending_due` (channel, traffic type) that no claim record holds, and the
 * end of the records' leases (their messages fall due again then, unless their outcomes come first), so that an idle
 * submitter sleeps until then instead of polling. The index leads with the lane: a plain ORDER BY due_at would read
 * all of it, a million entries behind a large dispatch, each time a submitter goes idle. The ids of `ids`, as the
 * claim.
 */
export async function messageNextDue(db: Queryable, ids: MessageIdRange = EVERY_ID): Promise<Date | null> {
  const [row] = await db.query<{ due_at: Date | null }>(
    `WITH held AS MATERIALIZED (SELECT unnest(ids) AS id FROM message_claims)
     SELECT least(min(l.due_at), (SELECT min(lease_expires_at) FROM message_claims)) AS due_at
     FROM unnest($1::text[]) AS c(channel_type)
     CROSS JOIN unnest($2::text[]) AS t(traffic_type)
     CROSS JOIN LATERAL (
       SELECT due_at FROM messages m
       WHERE m.status = 'sending' AND m.channel_type = c.channel_type AND m.traffic_type = t.traffic_type
         AND m.due_at < 'infinity' AND m.id >= $3 AND m.id < $4 AND m.id NOT IN (SELECT id FROM held)
       ORDER BY m.due_at LIMIT 1
     ) l`,
    [CHANNELS, TRAFFIC_TYPES, ids.from, ids.to],
  );
  return row?.due_at ?? null;
}
