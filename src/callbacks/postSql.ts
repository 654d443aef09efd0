import { type ArrayColumn, arrayLiteral, columnValues, unnestSelect } from '../db/columnArrays.js';
import { genericPlan, type Queryable } from '../db/db.js';
import { eventBody, type EventFacts } from './eventBody.js';
import type { EventPosition, Lane } from './laneSql.js';
import { inPost } from './postRange.js';
import { SMPP_URLS_SQL } from './smppPostSql.js';

/** ISO 8601 UTC with seconds, as callbacks show times. */
const isoSql = (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/** At most this many events go in one POST. */
export const EVENTS_PER_POST = 100;

/**
 * A lane with this many refused POSTs still open forms no more until one of them ends: a receiver that refuses
 * one POST (a body it cannot take) lets the rest of the lane go, while one that is down refuses every new
 * POST too, and would otherwise get a new one for every batch of events (16 lanes x 3 = 48 per URL at most).
 */
export const MAX_REFUSED_PER_LANE = 3;

/** New events read per look; more are read by the next (a look costs about a millisecond per 10,000). */
export const NEW_EVENTS_PER_LOOK = 20_000;

/**
 * Forms POSTs, in one statement, for the lanes of callback URLs that have events written since the last look
 * (`since`, a transaction id) or that the caller still watches (`pending`), and that have no POST waiting for
 * its first attempt: the next (up to) 100 events of each lane in (txid, id) order, from transactions that can no
 * longer commit behind the cursor. Lanes another sender is forming are skipped (their cursor row is locked), and so
 * are those it formed while this statement looked (their cursor moved since its snapshot).
 *
 * A lane waits for its POST's first attempt (events stay in order while receivers answer), not for the retries
 * of a POST its receiver refused: those would hold newer events back for up to a day (but see
 * {@link MAX_REFUSED_PER_LANE}). Events of a message that
 * still has an event in an open POST of the lane (held messages) go apart, in a second POST of the same
 * range that waits for those older ones (see {@link callbackPostsClaim}): each message's events arrive in
 * order, and a refused POST holds back only its own messages' later events.
 */
export async function callbackPostsForm(
  db: Queryable,
  now: Date,
  look: { readonly pending: readonly Lane[]; readonly since: EventPosition },
  maxLanes: number,
): Promise<FormRound> {
  // The look at new events reads callback_events_txid in order, up to its limit, however many events there are. A
  // planner without statistics (a new outbox, or a database restored or upgraded: pg_upgrade does not keep them)
  // takes a third of the table for any range, and read all of it and sorted it instead: 3.7 ms of a 6.5 ms round on
  // 30,000 events, and the whole outbox on a big one. Scans other than by an index are off for this statement only:
  // set local to the caller's transaction (the round's; outside one they would last only their own statement), and
  // put back after it, since the round's claim follows.
  const [saved] = await db.query<{ seqscan: string; bitmapscan: string }>(
    `SELECT current_setting('enable_seqscan') AS seqscan, current_setting('enable_bitmapscan') AS bitmapscan,
       set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
  );
  const [result] = await db.query<{
    formed: number;
    formed_smpp: number;
    next_txid: string;
    next_id: number;
    found: [number, number][] | null;
    caught_up: [number, number][] | null;
    cursorless: [number, number][] | null;
    behind: boolean;
  }>(
    genericPlan(`WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
     -- The lanes of the events written since the last look, found by their transaction ids: idle URLs cost nothing.
     -- In index order with a limit, so that no planner estimate (the outbox's statistics may be old or missing) can
     -- turn it into a read of the whole outbox; the next look goes on from where a cut-off one stopped.
     newest AS (
       SELECT e.txid, e.id, e.target_id, e.lane FROM callback_events e
       WHERE (e.txid, e.id) > ($5::xid8, $6::bigint)
       ORDER BY e.txid, e.id
       LIMIT ${NEW_EVENTS_PER_LOOK}
     ),
     found AS (SELECT DISTINCT n.target_id, n.lane FROM newest n, horizon h WHERE n.txid < h.xmin),
     looked AS (
       SELECT target_id, lane FROM unnest($3::bigint[], $4::smallint[]) AS i(target_id, lane)
       UNION
       SELECT target_id, lane FROM found
     ),
     probed AS (
       SELECT l.target_id, l.lane, c.target_id IS NOT NULL AS has_cursor, n.has_new IS NOT NULL AS has_new,
         c.cursor_txid AS seen_txid, c.cursor_event_id AS seen_event_id,
         EXISTS (
           SELECT 1 FROM callback_deliveries d
           WHERE d.target_id = l.target_id AND d.lane = l.lane AND d.state = 'open' AND NOT d.replay AND d.attempts = 0
             AND d.only_messages IS NULL
         ) OR (
           -- An SMPP POST's attempts are its leases: one in flight or waiting for a bind is not a refusal.
           SELECT count(*) FROM callback_deliveries d
           WHERE d.target_id = l.target_id AND d.lane = l.lane AND d.state = 'open' AND d.attempts > 0
             AND NOT d.via_smpp
         ) >= ${MAX_REFUSED_PER_LANE} AS blocked
       FROM looked l
       CROSS JOIN horizon h
       LEFT JOIN callback_cursors c ON c.target_id = l.target_id AND c.lane = l.lane
       -- The first event after the cursor, by an index lookup however many wait: the lane has formable events when
       -- its transaction is below the horizon (in (txid, id) order, those above the horizon all come last).
       LEFT JOIN LATERAL (
         SELECT true AS has_new FROM (
           SELECT e.txid FROM callback_events e
           WHERE e.target_id = c.target_id AND e.lane = c.lane AND (e.txid, e.id) > (c.cursor_txid, c.cursor_event_id)
           ORDER BY e.txid, e.id
           LIMIT 1
         ) first WHERE first.txid < h.xmin
       ) n ON true
     ),
     -- Only the lanes that will form are locked (a lock is a write), and their cursors are read as locked. A cursor
     -- another sender moved after this statement's snapshot (it formed the lane and committed while this one
     -- looked) no longer matches the one probed, on the recheck of the locked row: the lane is left to it, whose
     -- POST this snapshot cannot see. (Forming it again failed on callback_deliveries_one_fresh, 3-6 times a
     -- run with two workers.)
     candidates AS (
       SELECT c.target_id, c.lane, c.cursor_txid, c.cursor_event_id
       FROM callback_cursors c JOIN probed p ON p.target_id = c.target_id AND p.lane = c.lane
       WHERE p.has_new AND NOT p.blocked
         AND c.cursor_txid = p.seen_txid AND c.cursor_event_id = p.seen_event_id
       ORDER BY c.target_id, c.lane
       LIMIT $2
       FOR UPDATE OF c SKIP LOCKED
     ),
     -- The next events of each lane: an ordered scan of the primary key that reads nothing but the index.
     picked AS (
       SELECT c.target_id, c.lane, c.cursor_txid, c.cursor_event_id, e.txid, e.id,
         row_number() OVER (PARTITION BY c.target_id, c.lane ORDER BY e.txid DESC, e.id DESC) AS from_end,
         count(*) OVER (PARTITION BY c.target_id, c.lane) AS n
       FROM candidates c, horizon h
       CROSS JOIN LATERAL (
         SELECT e.txid, e.id FROM callback_events e
         WHERE e.target_id = c.target_id AND e.lane = c.lane AND (e.txid, e.id) > (c.cursor_txid, c.cursor_event_id)
         ORDER BY e.txid, e.id
         LIMIT ${EVENTS_PER_POST}
       ) e
       -- Filtered after the limit: events above the horizon come last in this order, and a filter inside would make
       -- the planner expect few rows and read all of a lane's events (a bitmap scan and a sort) instead of 100.
       WHERE e.txid < h.xmin
     ),
     -- Only a lane with an open POST (one its receiver refused) can hold messages back: the events of the
     -- others are not even read. Nor are those of the SMPP binds' lanes, whose POSTs stay open while their receipts
     -- are leased: they carry one event per message (its receipt, or an MO), which no older event can precede.
     open_lanes AS MATERIALIZED (
       SELECT c.target_id, c.lane FROM candidates c
       WHERE EXISTS (SELECT 1 FROM callback_deliveries o WHERE o.target_id = c.target_id AND o.lane = c.lane
         AND o.state = 'open' AND NOT o.via_smpp)
     ),
     held AS (
       SELECT e.target_id, e.lane, count(*) AS events, array_agg(DISTINCT e.message_id) AS messages
       FROM picked p
       JOIN open_lanes ol ON ol.target_id = p.target_id AND ol.lane = p.lane
       JOIN callback_events e ON e.target_id = p.target_id AND e.lane = p.lane AND e.txid = p.txid AND e.id = p.id
       -- Checked once: without such a lane (the usual round) nothing below runs.
       WHERE EXISTS (SELECT 1 FROM open_lanes) AND EXISTS (
         SELECT 1 FROM callback_deliveries o
         JOIN callback_events eo ON eo.account_id = e.account_id AND eo.message_id = e.message_id
           AND ${inPost('eo', 'o')}
         WHERE o.target_id = e.target_id AND o.lane = e.lane AND o.state = 'open'
       )
       GROUP BY e.target_id, e.lane
     ),
     ranges AS (
       SELECT p.target_id, p.lane, t.account_id, p.cursor_txid AS after_txid, p.cursor_event_id AS after_event_id,
         p.txid AS last_txid, p.id AS last_event_id, p.n - coalesce(h.events, 0) AS free_events,
         t.url IN ${SMPP_URLS_SQL} AS via_smpp,
         coalesce(h.events, 0) AS held_events, h.messages AS held_messages
       FROM picked p
       JOIN callback_targets t ON t.id = p.target_id
       LEFT JOIN held h ON h.target_id = p.target_id AND h.lane = p.lane
       WHERE p.from_end = 1
     ),
     moved AS (
       UPDATE callback_cursors c SET cursor_txid = r.last_txid, cursor_event_id = r.last_event_id
       FROM ranges r WHERE c.target_id = r.target_id AND c.lane = r.lane
     ),
     formed AS (
       SELECT r.*, NULL::uuid[] AS only_messages, r.held_messages AS excluded_messages, r.free_events AS events
       FROM ranges r WHERE r.free_events > 0
       UNION ALL
       SELECT r.*, r.held_messages, NULL, r.held_events FROM ranges r WHERE r.held_events > 0
     ),
     inserted AS (
       INSERT INTO callback_deliveries (id, account_id, target_id, lane, after_txid, after_event_id, last_txid,
         last_event_id, only_messages, excluded_messages, events, state, next_attempt_at, window_started_at, created_at,
         via_smpp)
       SELECT gen_random_uuid(), account_id, target_id, lane, after_txid, after_event_id, last_txid, last_event_id,
         only_messages, excluded_messages, events, 'open',
         -- The SMPP server's POSTs are never due for the HTTP sender (callbacks/smppPostSql.ts leases them).
         CASE WHEN via_smpp THEN 'infinity'::timestamptz ELSE $1 END, $1, $1, via_smpp
       FROM formed
       RETURNING via_smpp
     ),
     -- The next look goes on after the last event read, or from the horizon when this one read them all.
     next_look AS (
       SELECT CASE WHEN (SELECT count(*) FROM newest) < ${NEW_EVENTS_PER_LOOK} THEN (SELECT xmin FROM horizon)
         ELSE l.txid END AS txid,
         CASE WHEN (SELECT count(*) FROM newest) < ${NEW_EVENTS_PER_LOOK} THEN 0 ELSE l.id END AS id
       FROM (SELECT n.txid, n.id FROM newest n, horizon h WHERE n.txid < h.xmin ORDER BY n.txid DESC, n.id DESC
         LIMIT 1) l
       RIGHT JOIN (SELECT 1) one ON true
     )
     SELECT (SELECT count(*) FROM inserted)::int AS formed,
       (SELECT count(*) FROM inserted WHERE via_smpp)::int AS formed_smpp,
       coalesce((SELECT txid FROM next_look), $5::xid8)::text AS next_txid,
         coalesce((SELECT id FROM next_look), $6::bigint) AS next_id,
       (SELECT json_agg(json_build_array(target_id, lane)) FROM found) AS found,
       (SELECT json_agg(json_build_array(target_id, lane)) FROM probed WHERE has_cursor AND NOT has_new) AS caught_up,
       (SELECT json_agg(json_build_array(target_id, lane)) FROM probed WHERE NOT has_cursor) AS cursorless,
       (SELECT count(*) FROM newest) = ${NEW_EVENTS_PER_LOOK}
         OR EXISTS (SELECT 1 FROM newest n, horizon h WHERE n.txid >= h.xmin) AS behind`),
    [
      now,
      maxLanes,
      look.pending.map((l) => l.targetId),
      look.pending.map((l) => l.lane),
      look.since.txid,
      look.since.id,
    ],
  );
  // Not on failure: the transaction is then rolled back, and its settings with it.
  await db.query(`SELECT set_config('enable_seqscan', $1, true), set_config('enable_bitmapscan', $2, true)`, [
    saved!.seqscan,
    saved!.bitmapscan,
  ]);
  const lanes = (pairs: [number, number][] | null): Lane[] =>
    (pairs ?? []).map(([targetId, lane]) => ({ targetId, lane }));
  const r = result!;
  return {
    formed: r.formed,
    formedSmpp: r.formed_smpp,
    next: { txid: r.next_txid, id: Number(r.next_id) },
    found: lanes(r.found),
    caughtUp: lanes(r.caught_up),
    cursorless: lanes(r.cursorless),
    behind: r.behind,
  };
}

/** What a forming round did and saw. */
export interface FormRound {
  readonly formed: number;
  /** Of them, POSTs of the SMPP binds: the SMPP servers deliver them (wake topic 'receipts'). */
  readonly formedSmpp: number;
  /** Where the next look goes on: after the last event read, or the horizon below which no event can come any more. */
  readonly next: EventPosition;
  /** Lanes with events since the last look. */
  readonly found: Lane[];
  /** Lanes with nothing beyond their cursor: no need to look at them again until they have new events. */
  readonly caughtUp: Lane[];
  /** Lanes with events but no cursor (it expired while the lane was idle): they need one before they can form. */
  readonly cursorless: Lane[];
  /**
   * Whether events were left for a later look: beyond this look's limit, or of transactions above the horizon (an
   * older transaction still running anywhere on the server may yet commit events below them).
   */
  readonly behind: boolean;
}

/** A POST claimed for an attempt, with what sending it needs. */
export interface ClaimedPost {
  id: string;
  account_id: number;
  target_id: number;
  lane: number;
  url: string;
  secret: string;
  attempts: number;
  window_started_at: Date;
  after_txid: string;
  after_event_id: number;
  last_txid: string;
  last_event_id: number;
  only_messages: string[] | null;
  excluded_messages: string[] | null;
  /** The end of this claim's lease (the POST's next_attempt_at while it holds it): its outcome names it. */
  lease_until: Date;
}

/**
 * Claims open POSTs whose attempt is due, the earliest due first (by id among those due at the same instant: an
 * index scan of `callback_deliveries_due` that stops at the limit), leasing them for `leaseMs` (SKIP LOCKED: senders
 * share the work).
 * A POST of held messages (see {@link callbackPostsForm}) waits while an older open POST of its lane
 * holds an event of one of them.
 */
/**
 * When the next open POST falls due (a retry, a parked host's, a claimed one's lease end), or null when none is
 * open: the first entry of `callback_deliveries_due`, so that an idle sender sleeps until then instead of polling.
 */
export async function callbackPostNextDue(db: Queryable): Promise<Date | null> {
  const [row] = await db.query<{ next_attempt_at: Date }>(
    `SELECT next_attempt_at FROM callback_deliveries WHERE state = 'open' AND NOT via_smpp
     ORDER BY next_attempt_at LIMIT 1`,
  );
  return row?.next_attempt_at ?? null;
}

export async function callbackPostsClaim(
  db: Queryable,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<ClaimedPost[]> {
  return db.query<ClaimedPost>(
    `WITH due AS (
       SELECT d.id FROM callback_deliveries d
       WHERE d.state = 'open' AND d.next_attempt_at <= $1
         AND (d.only_messages IS NULL OR NOT EXISTS (
           SELECT 1 FROM callback_deliveries o
           JOIN callback_events eo ON eo.account_id = o.account_id AND eo.message_id = ANY(d.only_messages)
             AND ${inPost('eo', 'o')}
           WHERE o.target_id = d.target_id AND o.lane = d.lane AND o.state = 'open'
             AND (o.last_txid, o.last_event_id) <= (d.after_txid, d.after_event_id)
         ))
       ORDER BY d.next_attempt_at, d.id
       LIMIT $2
       FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE callback_deliveries d SET next_attempt_at = $3
     FROM due, callback_targets t, accounts a
     WHERE d.id = due.id AND t.id = d.target_id AND a.id = d.account_id
     RETURNING d.id, d.account_id, d.target_id, d.lane, t.url, a.callback_secret AS secret, d.attempts,
       d.window_started_at, d.after_txid::text AS after_txid, d.after_event_id, d.last_txid::text AS last_txid,
       d.last_event_id, d.only_messages, d.excluded_messages, d.next_attempt_at AS lease_until`,
    [now, limit, new Date(now.getTime() + leaseMs)],
  );
}

/** Where a POST's events lie: its lane and range. */
type EventRange = Pick<
  ClaimedPost,
  | 'target_id'
  | 'lane'
  | 'after_txid'
  | 'after_event_id'
  | 'last_txid'
  | 'last_event_id'
  | 'only_messages'
  | 'excluded_messages'
>;

/** The bodies of a POST's events, in order, as JSON text. */
export async function callbackPostBodies(db: Queryable, d: EventRange): Promise<string[]> {
  return (await callbackPostsBodies(db, [{ ...d, id: '' }])).get('')!;
}

/** A POST of a round, as {@link callbackPostsBodies} reads its range: the round's index `n` names it. */
type NumberedRange = EventRange & { readonly n: number };

const RANGE_COLUMNS: readonly ArrayColumn<NumberedRange>[] = [
  { name: 'n', type: 'integer' },
  { name: 'target_id', type: 'bigint' },
  { name: 'lane', type: 'smallint' },
  { name: 'after_txid', type: 'xid8' },
  { name: 'after_event_id', type: 'bigint' },
  { name: 'last_txid', type: 'xid8' },
  { name: 'last_event_id', type: 'bigint' },
  { name: 'only_messages', type: 'uuid[]', as: 'text', value: (r) => r.only_messages && arrayLiteral(r.only_messages) },
  {
    name: 'excluded_messages',
    type: 'uuid[]',
    as: 'text',
    value: (r) => r.excluded_messages && arrayLiteral(r.excluded_messages),
  },
];
const RANGES_SELECT = unnestSelect(RANGE_COLUMNS, 1, 'r');

/**
 * The bodies of a round's POSTs (the due ones it claimed), by POST id, each POST's events in order, in one statement
 * (a statement each cost a round trip a POST, 20 per 1000 messages with callbacks in the roles benchmark): each range
 * read through the primary key with the POST's bounds as the scan's parameters (a plan test holds it), a POST of
 * some messages of its range (held messages) keeping only those.
 */
export async function callbackPostsBodies(
  db: Queryable,
  posts: readonly (EventRange & { readonly id: string })[],
): Promise<Map<string, string[]>> {
  const bodies = posts.map((): string[] => []);
  if (posts.length > 0) {
    const rows = await db.query<EventFacts & { n: number }>(
      `SELECT r.n, e.message_id, e.event, e.channel_type, e.status, ${isoSql('e.at')} AS at, e.error_code, e.extra,
         e.cascade_id, e.cascade_step
       FROM (${RANGES_SELECT}) r
       CROSS JOIN LATERAL (
         SELECT * FROM callback_events e
         WHERE e.target_id = r.target_id AND e.lane = r.lane AND (e.txid, e.id) > (r.after_txid, r.after_event_id)
           AND (e.txid, e.id) <= (r.last_txid, r.last_event_id)
           AND (r.only_messages IS NULL OR e.message_id = ANY(r.only_messages))
           AND (r.excluded_messages IS NULL OR NOT e.message_id = ANY(r.excluded_messages))
       ) e
       ORDER BY r.n, e.txid, e.id`,
      columnValues(
        RANGE_COLUMNS,
        posts.map((post, n) => ({ ...post, n })),
      ),
    );
    for (const row of rows) bodies[row.n]!.push(eventBody(row));
  }
  return new Map(posts.map((post, n) => [post.id, bodies[n]!]));
}

export interface AttemptOutcome {
  readonly postId: string;
  readonly accountId: number;
  readonly at: Date;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  /** delivered; or retry at `nextAttemptAt`; or failed (its window is over, or it can never succeed). */
  readonly result: 'delivered' | 'retry' | 'failed';
  readonly nextAttemptAt: Date | null;
  /** The lease the attempt was made under ({@link ClaimedPost.lease_until}). */
  readonly leaseUntil: Date;
}

/**
 * Records attempts and their consequences for their POSTs, in one statement however many (the sender gathers the
 * outcomes that end while one is being written: a write transaction per POST was most of a callback's, 38 of 59
 * per 1000 messages in the roles benchmark). A refusal (a retry, a failure) changes its POST only while the POST is
 * still under the lease its attempt was made under: a sender whose lease ran out (its process stalled) and another
 * took the POST meanwhile logs its attempt and leaves the POST to the other (its late refusal opened again a POST the
 * other had delivered). A delivery ends its POST while the POST is open, under whichever lease: the receiver has it.
 */
export async function callbackPostsRecord(db: Queryable, outcomes: readonly AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const column = <T>(f: (o: AttemptOutcome) => T): T[] => outcomes.map(f);
  await db.query(
    `WITH o AS (
       SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[],
         $8::timestamptz[], $9::timestamptz[])
         AS o (id, account_id, at, http_status, latency_ms, error, result, next_attempt_at, lease_until)
     ),
     attempt AS (
       INSERT INTO callback_attempts (delivery_id, account_id, at, http_status, latency_ms, error)
       SELECT id, account_id, at, http_status, latency_ms, error FROM o
     )
     UPDATE callback_deliveries d
     SET attempts = d.attempts + 1, last_attempt_at = o.at, last_http_status = o.http_status, last_error = o.error,
         state = CASE o.result WHEN 'retry' THEN 'open' ELSE o.result END,
         next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at),
         finished_at = CASE o.result WHEN 'retry' THEN NULL ELSE o.at END
     FROM o WHERE d.id = o.id AND d.state = 'open' AND (o.result = 'delivered' OR d.next_attempt_at = o.lease_until)`,
    [
      column((o) => o.postId),
      column((o) => o.accountId),
      column((o) => o.at),
      column((o) => o.httpStatus),
      column((o) => o.latencyMs),
      column((o) => o.error),
      column((o) => o.result),
      column((o) => o.nextAttemptAt),
      column((o) => o.leaseUntil),
    ],
  );
}

/**
 * Puts a POST back in the queue without counting an attempt (its receiver's circuit is open), while it is still under
 * the lease it was claimed with (`leaseUntil`).
 */
export async function callbackPostDefer(db: Queryable, id: string, leaseUntil: Date, until: Date): Promise<void> {
  await db.query(
    `UPDATE callback_deliveries SET next_attempt_at = $3 WHERE id = $1 AND state = 'open' AND next_attempt_at = $2`,
    [id, leaseUntil, until],
  );
}

export interface CallbackPostRow {
  id: string;
  url: string;
  state: 'open' | 'delivered' | 'failed';
  replay: boolean;
  events: number;
  attempts: number;
  /** Null for an SMPP POST no process holds (smppPostSql.ts). */
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_http_status: number | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** An SMPP POST (smppPostSql.ts) is never due for HTTP: its next attempt is its lease's end, or none while unbound. */
const POST_COLUMNS = `d.id, t.url, d.state, d.replay, d.events, d.attempts,
  CASE WHEN d.via_smpp THEN d.smpp_lease_until ELSE d.next_attempt_at END AS next_attempt_at, d.last_attempt_at,
  d.last_http_status, d.last_error, d.created_at, d.finished_at`;

export async function callbackPostList(
  db: Queryable,
  accountId: number,
  state: string | null,
  messageId: string | null,
  limit: number,
  offset: number,
): Promise<{ rows: CallbackPostRow[]; total: number }> {
  const where = `d.account_id = $1 AND ($2::text IS NULL OR d.state = $2)
    AND ($3::uuid IS NULL OR EXISTS (
      SELECT 1 FROM callback_events e WHERE e.account_id = d.account_id AND e.message_id = $3
        AND ${inPost('e', 'd')}))`;
  const rows = await db.query<CallbackPostRow>(
    `SELECT ${POST_COLUMNS} FROM callback_deliveries d JOIN callback_targets t ON t.id = d.target_id
     WHERE ${where} ORDER BY d.created_at DESC, d.id LIMIT $4 OFFSET $5`,
    [accountId, state, messageId, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM callback_deliveries d WHERE ${where}`, [
    accountId,
    state,
    messageId,
  ]);
  return { rows, total: count!.n };
}

export async function callbackPostGet(
  db: Queryable,
  accountId: number,
  id: string,
): Promise<
  | (CallbackPostRow & {
      bodies: unknown[];
      attempts_list: { at: Date; http_status: number | null; latency_ms: number; error: string | null }[];
    })
  | undefined
> {
  const [row] = await db.query<CallbackPostRow & EventRange & { account_id: number }>(
    `SELECT ${POST_COLUMNS}, d.target_id, d.lane, d.account_id, d.after_txid::text AS after_txid, d.after_event_id,
       d.last_txid::text AS last_txid, d.last_event_id, d.only_messages, d.excluded_messages
     FROM callback_deliveries d JOIN callback_targets t ON t.id = d.target_id WHERE d.account_id = $1 AND d.id = $2`,
    [accountId, id],
  );
  if (!row) return undefined;
  const bodies = (await callbackPostBodies(db, row)).map((b) => JSON.parse(b) as unknown);
  const attempts = await db.query<{ at: Date; http_status: number | null; latency_ms: number; error: string | null }>(
    'SELECT at, http_status, latency_ms, error FROM callback_attempts WHERE delivery_id = $1 ORDER BY id',
    [id],
  );
  return { ...row, bodies, attempts_list: attempts };
}

/**
 * Opens failed POSTs again (a client's replay): same id, same events, a fresh retry window. Returns the ids
 * replayed; ids not found or not failed are left alone.
 */
export async function callbackPostReplay(
  db: Queryable,
  accountId: number,
  ids: readonly string[] | 'all-failed',
  now: Date,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE callback_deliveries
     SET state = 'open', replay = true, next_attempt_at = $3, window_started_at = $3, finished_at = NULL
     WHERE account_id = $1 AND state = 'failed' AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
     RETURNING id`,
    [accountId, ids === 'all-failed' ? null : ids, now],
  );
  return rows.map((r) => r.id);
}
