import type { Queryable } from '../db/db.js';
import { type Channel, CHANNELS } from '../shared/channels.js';
import { TRAFFIC_TYPES, type TrafficType } from '../shared/trafficTypes.js';
import { NIL_UUID } from './messagePartitions.js';

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
 * Claims due messages by traffic type first (AUTHORIZE, TRANSACT, SERVICE, PROMO: an authorisation code never
 * waits behind promotions), then the earliest due (by id among those due at the same instant), within `limits`:
 * per channel (a carrier that is slow or down fills its channel's share of a worker's hands, not every place) and
 * in all. One index range scan of `messages_sending_due` per channel and type, each stopping at what is left of
 * its channel's limit, however many messages of later types or of a full channel wait. Rows other workers hold
 * are skipped. The claimed messages are leased: their due time moves to the end of the lease, so that a worker
 * that dies holding them lets them fall due again. Only ids from `floor` on are read ({@link QueueFloor}; by
 * default every id): the plan holds only the partitions from there. Returned in claim order.
 */
export async function messageClaimDue(
  db: Queryable,
  now: Date,
  limits: ClaimLimits,
  leaseMs: number,
  floor = NIL_UUID,
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
           AND id >= $8
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
       AND m.id >= $8
     RETURNING m.account_id, m.id, m.channel_type, m.sender_name, m.destination, m.country, m.brand, m.content,
       m.total_parts,
       m.ttl, m.external_message_id, m.use_local_time, m.local_send_time, m.local_completion_time, m.hours, m.days,
       m.template_id, (extract(epoch FROM m.deadline_at) * 1000)::float8 AS deadline_ms,
       (extract(epoch FROM coalesce(m.expires_at, m.deadline_at)) * 1000)::float8 AS expires_ms,
       (extract(epoch FROM m.planned_send_at) * 1000)::float8 AS planned_send_ms, m.attempts, m.cascade_id,
       m.traffic_type, m.reroute, due.rank`,
    [
      now,
      limits.total,
      new Date(now.getTime() + leaseMs),
      lanes.map((l) => l.channel),
      lanes.map((l) => l.any),
      lanes.map((l) => l.bulk),
      limits.bulk,
      floor,
    ],
  );
  // UPDATE ... RETURNING keeps no order: urgent messages go to the connectors first.
  return claimed.sort((a, b) => a.rank - b.rank).map(({ rank: _rank, ...message }) => message);
}

/**
 * When the next message of the queue falls due (a leased one: when its lease ends), or null when none waits: the
 * first entry of each lane of `messages_sending_due` (channel, traffic type), so that an idle submitter sleeps
 * until then instead of polling. The index leads with the lane: a plain ORDER BY due_at would read all of it, a
 * million entries behind a large dispatch, each time a submitter goes idle. Ids from `floor` on, as the claim.
 */
export async function messageNextDue(db: Queryable, floor = NIL_UUID): Promise<Date | null> {
  const [row] = await db.query<{ due_at: Date | null }>(
    `SELECT min(l.due_at) AS due_at
     FROM unnest($1::text[]) AS c(channel_type)
     CROSS JOIN unnest($2::text[]) AS t(traffic_type)
     CROSS JOIN LATERAL (
       SELECT due_at FROM messages m
       WHERE m.status = 'sending' AND m.channel_type = c.channel_type AND m.traffic_type = t.traffic_type
         AND m.id >= $3
       ORDER BY m.due_at LIMIT 1
     ) l`,
    [CHANNELS, TRAFFIC_TYPES, floor],
  );
  return row?.due_at ?? null;
}
