import type { Queryable } from '../db/db.js';
import { uuidBoundSql } from '../util/uuid7.js';
import { LANES } from './eventSql.js';

/** How many of an account's messages are read at most to tell whether one refers to a target (the expiry's). */
export const WINDOW_READ = 100;

/**
 * The URL of the target `column` names, as an SQL expression: a message with a callback keeps only its target's id
 * (messages/messageSql.ts), and its target is never deleted while a message refers to it (callbackTargetsExpire).
 */
export const callbackTargetUrl = (column: string): string =>
  `(SELECT t.url FROM callback_targets t WHERE t.id = ${column})`;

/** A target of an account's URL as the database knows it. */
export interface TargetRow {
  readonly id: number;
  readonly url: string;
}

/** A target found in use, with when a batch last resolved it before this one (a committed time). */
export interface TouchedTarget extends TargetRow {
  readonly usedBefore: Date;
}

/**
 * Marks the account's targets of `urls` used at `now` (the time a target counts as idle from, see
 * {@link callbackTargetsExpire}) and returns them, each with the time it was last used before: that was committed by
 * an earlier transaction, whereas this one's mark may yet be rolled back. With `createdSince`, also counts the
 * account's targets created since then (in the same statement: one round trip).
 */
export async function callbackTargetsTouch(
  db: Queryable,
  accountId: number,
  urls: readonly string[],
  now: Date,
  createdSince: Date | null,
): Promise<{ touched: TouchedTarget[]; createdSince: number }> {
  const [row] = await db.query<{
    touched: { id: number; url: string; used_before: string }[] | null;
    created_since: number;
  }>(
    // Rows are locked in id order: batches that touch the same URLs wait for each other instead of deadlocking.
    `WITH before AS (
       SELECT id, url, used_at FROM callback_targets WHERE account_id = $1 AND url = ANY($2::text[])
       ORDER BY id
       FOR NO KEY UPDATE
     ),
     touched AS (
       UPDATE callback_targets t SET used_at = greatest(t.used_at, $3)
       FROM before b WHERE t.id = b.id
       RETURNING t.id, t.url, b.used_at AS used_before
     )
     SELECT (SELECT json_agg(touched) FROM touched) AS touched,
       CASE WHEN $4::timestamptz IS NULL THEN 0
         ELSE (SELECT count(*)::int FROM callback_targets WHERE account_id = $1 AND created_at >= $4)
       END AS created_since`,
    [accountId, urls, now, createdSince],
  );
  return {
    touched: (row!.touched ?? []).map((t) => ({ id: t.id, url: t.url, usedBefore: new Date(t.used_before) })),
    createdSince: row!.created_since,
  };
}

/** Creates the account's targets of `urls` (those a concurrent transaction created are returned as they are). */
export async function callbackTargetsInsert(
  db: Queryable,
  accountId: number,
  urls: readonly string[],
  now: Date,
): Promise<TargetRow[]> {
  // Its lanes get their cursors when their first events are formed into POSTs (callbacks/laneSql.ts).
  return db.query<TargetRow>(
    `INSERT INTO callback_targets (account_id, url, created_at, used_at)
     SELECT $1, u, $3, $3 FROM unnest($2::text[]) AS u
     ORDER BY u
     ON CONFLICT (account_id, url) DO UPDATE SET used_at = greatest(callback_targets.used_at, excluded.used_at)
     RETURNING id, url`,
    [accountId, urls, now],
  );
}

/** Where an expiry run stands in the targets it looks at, in the order it looks at them. */
export interface ExpiryPosition {
  readonly usedAt: Date;
  readonly id: number;
}

export const EXPIRY_START: ExpiryPosition = { usedAt: new Date(0), id: 0 };

/** What one batch of {@link callbackTargetsExpire} did. */
export interface ExpiryBatch {
  /** Targets looked at: fewer than the limit when it reached the last one. */
  readonly examined: number;
  /** Where the next batch goes on. */
  readonly next: ExpiryPosition;
  /** Targets whose cursors went: they stay, as one row, while something still refers to them. */
  readonly parked: number;
  /** Targets that went altogether: a URL used again gets a new one. */
  readonly deleted: number;
}

/**
 * Expires up to `limit` targets last used before `usedBefore`, after `after` in (used_at, id) order, that have
 * nothing pending: no open POST, and no event beyond where its lane stands (its cursor, or, for a lane without
 * one, `lanes_from_txid`). Their cursors go (16 rows of an idle URL), and lanes without one start again after every
 * event of a transaction that had ended when this statement began (`lanes_from_txid`): events written later come from
 * transactions that had not, so a lane's next events are neither missed nor sent twice. A target that nothing refers
 * to any more (no event, which a POST holds until the retention deletes both, and no message, which could still
 * raise one: a click, a read receipt) is deleted instead. Such a target is parked (no longer looked at) until a lane
 * gets a cursor again or the retention deletes what referred to it (see {@link callbackTargetsRecheck} and
 * {@link callbackTargetsRecheckUsedBefore}).
 *
 * Messages are not indexed by target (an entry in each of a message's four row versions, for this check alone):
 * a message refers to a target only if it was made while the target was in use, from `windowMs` before its creation
 * to `windowMs` after its last use (a process uses a target's id for an hour after the last use the database
 * recorded, and message ids carry their creation time; the rest allows for clocks that disagree). So the check reads
 * the account's messages of that time, in id order, at most {@link WINDOW_READ} of them: a target whose window holds
 * more is taken as referred to (parked, and looked at again once the retention deleted that time's messages).
 *
 * Targets and cursors other transactions hold are left for a later run (a sender forming a lane, a batch using the
 * URL), and a cursor that moved since this statement's snapshot is kept (and its target looked at again later).
 */
export async function callbackTargetsExpire(
  db: Queryable,
  usedBefore: Date,
  after: ExpiryPosition,
  limit: number,
  windowMs: number,
): Promise<ExpiryBatch> {
  const [row] = await db.query<{
    examined: number;
    next_used_at: Date | null;
    next_id: number | null;
    parked: number;
    deleted: number;
  }>(
    `WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
     candidates AS (
       SELECT t.id, t.account_id, t.created_at, t.used_at, t.lanes_from_txid FROM callback_targets t
       WHERE NOT t.parked AND t.used_at < $1 AND (t.used_at, t.id) > ($2::timestamptz, $3::bigint)
       ORDER BY t.used_at, t.id
       LIMIT $4
       FOR UPDATE SKIP LOCKED
     ),
     -- Nothing pending, checked lane by lane (16 index probes a target, however many events it ever had).
     idle AS (
       SELECT c.id, c.account_id, c.created_at, c.used_at,
         (SELECT count(*) FROM callback_cursors k WHERE k.target_id = c.id) AS cursors
       FROM candidates c
       WHERE NOT EXISTS (SELECT 1 FROM callback_deliveries d WHERE d.target_id = c.id AND d.state = 'open')
         AND NOT EXISTS (
           SELECT 1 FROM generate_series(0, ${LANES - 1}) AS l(lane)
           LEFT JOIN callback_cursors k ON k.target_id = c.id AND k.lane = l.lane
           WHERE EXISTS (
             SELECT 1 FROM callback_events e
             WHERE e.target_id = c.id AND e.lane = l.lane
               AND (e.txid, e.id) > (coalesce(k.cursor_txid, c.lanes_from_txid), coalesce(k.cursor_event_id, 0))
           )
         )
     ),
     -- A cursor is deleted only where it still stands as this statement saw it: a sender that moved it meanwhile
     -- formed a POST this statement cannot see.
     seen AS (
       SELECT k.target_id, k.lane, k.cursor_txid, k.cursor_event_id
       FROM callback_cursors k JOIN idle i ON i.id = k.target_id
     ),
     dropped AS (
       DELETE FROM callback_cursors k USING seen s
       WHERE k.target_id = s.target_id AND k.lane = s.lane
         AND k.cursor_txid = s.cursor_txid AND k.cursor_event_id = s.cursor_event_id
       RETURNING k.target_id
     ),
     settled AS (
       SELECT i.id,
         (SELECT count(*) FROM dropped d WHERE d.target_id = i.id) = i.cursors AS all_dropped,
         NOT EXISTS (SELECT 1 FROM callback_events e WHERE e.target_id = i.id)
           AND (SELECT count(*) <= ${WINDOW_READ} AND count(*) FILTER (WHERE w.callback_target_id = i.id) = 0
             FROM (
               SELECT m.callback_target_id FROM messages m
               WHERE m.account_id = i.account_id
                 AND m.id BETWEEN ${uuidBoundSql("i.created_at - $5 * interval '1 millisecond'", 'low')}
                   AND ${uuidBoundSql("i.used_at + $5 * interval '1 millisecond'", 'high')}
               ORDER BY m.id LIMIT ${WINDOW_READ + 1}
             ) w) AS unused
       FROM idle i
     ),
     deleted AS (
       DELETE FROM callback_targets t USING settled s WHERE t.id = s.id AND s.all_dropped AND s.unused
       RETURNING 1
     ),
     parked AS (
       UPDATE callback_targets t SET parked = s.all_dropped, lanes_from_txid = h.xmin
       FROM settled s, horizon h
       WHERE t.id = s.id AND NOT (s.all_dropped AND s.unused)
       RETURNING t.parked
     ),
     last AS (SELECT used_at, id FROM candidates ORDER BY used_at DESC, id DESC LIMIT 1)
     SELECT (SELECT count(*) FROM candidates)::int AS examined,
       (SELECT used_at FROM last) AS next_used_at, (SELECT id FROM last) AS next_id,
       (SELECT count(*) FROM parked WHERE parked)::int AS parked, (SELECT count(*) FROM deleted)::int AS deleted`,
    [usedBefore, after.usedAt, after.id, limit, windowMs],
  );
  const r = row!;
  return {
    examined: r.examined,
    next: r.next_id === null ? after : { usedAt: r.next_used_at!, id: r.next_id },
    parked: r.parked,
    deleted: r.deleted,
  };
}

/**
 * Has the expiry look at these targets again: the retention deleted messages or events that referred to them, so
 * they may now go altogether.
 */
export async function callbackTargetsRecheck(db: Queryable, targetIds: readonly number[]): Promise<void> {
  // 10,000 a statement: a sweep may have deleted the messages of many URLs.
  for (let from = 0; from < targetIds.length; from += 10_000) {
    await db.query(
      `WITH chosen AS (
         SELECT id FROM callback_targets WHERE id = ANY($1::bigint[]) AND parked ORDER BY id FOR NO KEY UPDATE
       )
       UPDATE callback_targets t SET parked = false FROM chosen c WHERE t.id = c.id`,
      [targetIds.slice(from, from + 10_000)],
    );
  }
}

/**
 * Has the expiry look at the parked targets last used before `before` again: the retention deleted the messages made
 * before `before` plus the expiry's window, so a target whose window held too many of them to read may now go.
 */
export async function callbackTargetsRecheckUsedBefore(db: Queryable, before: Date): Promise<void> {
  // 10,000 a statement, through callback_targets_parked.
  for (;;) {
    const rows = await db.query(
      `WITH chosen AS (
         SELECT id FROM callback_targets WHERE parked AND used_at < $1 ORDER BY used_at LIMIT 10000 FOR NO KEY UPDATE
       )
       UPDATE callback_targets t SET parked = false FROM chosen c WHERE t.id = c.id RETURNING 1`,
      [before],
    );
    if (rows.length < 10_000) return;
  }
}
