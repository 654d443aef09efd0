import type { Db, Queryable } from '../db/db.js';
import type { Job } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import { DAY_MS, dayOf } from '../util/time.js';
import { isUuid7, uuidBound, uuidTime } from '../util/uuid7.js';

/**
 * Partitions of `messages` (docs/scaling.md, Partitions): one per week (Monday to Monday, UTC) by RANGE of the id
 * (a version 7 UUID: its first 48 bits are the milliseconds of its creation), the table of before partitioning
 * (`messages_legacy`, every id before the day after the migration) and a DEFAULT partition for ids none covers.
 */
export interface MessagePartition {
  readonly name: string;
  /** The first millisecond of its ids (null: MINVALUE); both null for the DEFAULT partition. */
  readonly fromMs: number | null;
  /** The millisecond after its last ids (null: no end). */
  readonly toMs: number | null;
  readonly isDefault: boolean;
}

/** Days made ahead of today: a week without a maintenance run before ids land in DEFAULT. */
export const PARTITION_DAYS_AHEAD = 7;
/** The partition maintenance looks every hour: a missed run or a lock it gave up on has 7 days to succeed. */
export const PARTITION_MAINTENANCE_EVERY_MS = 3_600_000;
/**
 * How long attaching or dropping a partition waits for its lock before giving up until the next run: the lock
 * queues every statement on messages behind it, so it must not wait behind a long transaction (a report) for long.
 */
export const PARTITION_LOCK_TIMEOUT = '2s';
// Any fixed number: one maintenance at a time among the processes of a database.
const PARTITION_LOCK_KEY = 7_311_400_530;

const bound = (text: string): number | null => (text === 'MINVALUE' || text === 'MAXVALUE' ? null : uuidTime(text));

/** The partitions of the partitioned table `parent`, from the catalogue, with their bounds as SQL gives them. */
async function partitionsOf(db: Queryable, parent: string): Promise<{ name: string; bound: string }[]> {
  return db.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass`,
    [parent],
  );
}

/** The partitions of messages, from the catalogue, oldest first (DEFAULT last). */
export async function messagePartitions(db: Queryable): Promise<MessagePartition[]> {
  const rows = await partitionsOf(db, 'messages');
  const partitions = rows.map(({ name, bound: text }): MessagePartition => {
    const range = /^FOR VALUES FROM \('?([^')]+)'?\) TO \('?([^')]+)'?\)$/.exec(text);
    if (!range) return { name, fromMs: null, toMs: null, isDefault: true };
    return { name, fromMs: bound(range[1]!), toMs: bound(range[2]!), isDefault: false };
  });
  const key = (p: MessagePartition): number => (p.isDefault ? Infinity : (p.fromMs ?? -Infinity));
  return partitions.sort((a, b) => key(a) - key(b));
}

/** A partition's span: a week, from Monday 00:00 UTC (see docs/scaling.md, Partitions, for the measure behind it). */
export const PARTITION_MS = 7 * DAY_MS;
// 1970-01-05, the first Monday of Unix time.
const FIRST_MONDAY_MS = 4 * DAY_MS;

/** The start of the partition week of `ms`. */
export function partitionWeekOf(ms: number): number {
  return Math.floor((ms - FIRST_MONDAY_MS) / PARTITION_MS) * PARTITION_MS + FIRST_MONDAY_MS;
}

/**
 * Makes the week partitions that cover today and the {@link PARTITION_DAYS_AHEAD} days after `now` where no
 * partition covers them yet (a week that another partition covers in part gets a partition for the rest of it: the
 * table of before partitioning ends on a day), each with its partition of message_destinations; returns their
 * names. Ids of those ranges already in DEFAULT move into their partition in the same transaction. A partition is
 * made apart and then attached, which locks messages only against other DDL (SHARE UPDATE EXCLUSIVE) instead of
 * every statement (CREATE TABLE ... PARTITION OF); attaching reads DEFAULT under its ACCESS EXCLUSIVE lock to check
 * it, which is short while DEFAULT is near empty.
 */
export async function messagePartitionsEnsure(db: Db, now: Date, daysAhead = PARTITION_DAYS_AHEAD): Promise<string[]> {
  const until = Math.floor(now.getTime() / DAY_MS) * DAY_MS + (daysAhead + 1) * DAY_MS;
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK_KEY]);
    await tx.exec(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
    const all = await messagePartitions(tx);
    const existing = all.filter((p) => !p.isDefault);
    const fallback = all.find((p) => p.isDefault);
    const created: string[] = [];
    for (let week = partitionWeekOf(now.getTime()); week < until; week += PARTITION_MS) {
      const [start, end] = uncovered(existing, week, week + PARTITION_MS);
      if (start >= end) continue;
      // DDL takes no parameters: the name and bounds are made here from numbers, never from input.
      const name = `messages_p${dayOf(start).replaceAll('-', '')}`;
      const [from, to] = [uuidBound(start, 'low'), uuidBound(end, 'low')];
      await tx.exec(`CREATE TABLE ${name} (LIKE messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
      if (fallback) {
        await tx.query(
          `WITH moved AS (DELETE FROM ${fallback.name} WHERE id >= $1 AND id < $2 RETURNING *)
           INSERT INTO ${name} SELECT * FROM moved`,
          [from, to],
        );
      }
      await tx.exec(`ALTER TABLE messages ATTACH PARTITION ${name} FOR VALUES FROM ('${from}') TO ('${to}')`);
      created.push(name);
    }
    await destinationPartitionsEnsure(
      tx,
      (await messagePartitions(tx)).filter((p) => !p.isDefault),
    );
    return created;
  });
}

/** The partition of message_destinations that holds the rows of messages' partition `name`. */
export function destinationPartitionOf(name: string): string {
  return `message_destinations_${name.slice('messages_'.length)}`;
}

/**
 * Gives each partition of messages its partition of message_destinations, with the same bounds, where it has none
 * (a partition made now, or by a process from before message_destinations), its rows moved from DEFAULT; and drops
 * those whose partition of messages went without them (the retention of such a process).
 */
async function destinationPartitionsEnsure(tx: Queryable, partitions: readonly MessagePartition[]): Promise<void> {
  const have = new Set((await partitionsOf(tx, 'message_destinations')).map((r) => r.name));
  const fallback = destinationPartitionOf('messages_default');
  const wanted = new Set(partitions.map((p) => destinationPartitionOf(p.name)));
  for (const name of have) {
    if (name === fallback || wanted.has(name)) continue;
    await tx.exec(`DROP TABLE ${name}`);
    have.delete(name);
  }
  for (const p of partitions) {
    const name = destinationPartitionOf(p.name);
    if (have.has(name)) continue;
    have.add(name);
    const { from, to } = messagePartitionIds(p);
    const low = p.fromMs === null ? 'MINVALUE' : `'${from}'`;
    await tx.exec(`CREATE TABLE ${name} (LIKE message_destinations INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    if (have.has(fallback)) {
      await tx.query(
        `WITH moved AS (DELETE FROM ${fallback} WHERE id >= $1 AND id < $2 RETURNING *)
         INSERT INTO ${name} SELECT * FROM moved`,
        [from, to],
      );
    }
    await tx.exec(`ALTER TABLE message_destinations ATTACH PARTITION ${name} FOR VALUES FROM (${low}) TO ('${to}')`);
  }
}

/** The part of [start, end) that starts where the partitions covering its start end, up to the next one's start. */
function uncovered(partitions: readonly MessagePartition[], start: number, end: number): [number, number] {
  let from = start;
  for (const p of partitions)
    if ((p.fromMs ?? -Infinity) <= from && (p.toMs ?? Infinity) > from) from = p.toMs ?? Infinity;
  let to = end;
  for (const p of partitions) if (p.fromMs !== null && p.fromMs > from && p.fromMs < to) to = p.fromMs;
  return [from, to];
}

/** Message ids from `from` (inclusive) to `to` (exclusive). */
export interface MessageIdRange {
  readonly from: string;
  readonly to: string;
}

/** The lowest UUID: where a partition from MINVALUE starts (ids of other versions than 7 included). */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The ids of a partition's messages (a partition with an end: DEFAULT has none). */
export function messagePartitionIds(p: MessagePartition): MessageIdRange {
  return { from: p.fromMs === null ? NIL_UUID : uuidBound(p.fromMs, 'low'), to: uuidBound(p.toMs!, 'low') };
}

/**
 * The queue's floor (docs/scaling.md, Partitions): the lowest id a message not yet at rest may have, in `sending` or
 * waiting with a due time (`sent` for its receipt, which may send it back to `sending` through a reroute;
 * `delivered` on a read-tracked channel for its read), so that the claim, the next-due query and the expiry's
 * statements plan only the partitions from there. It is the first id of the oldest partition that holds one or that
 * reaches into the day before `now` (ids stamped by a process whose clock runs behind, messages being stored). A
 * message is stored with an id of its creation and, once at rest (final, read, or delivered on a channel without
 * reads), never moves again, so an older partition without one never holds one again. Each partition (and each gap
 * between two, whose ids DEFAULT holds) is asked apart, oldest first, through its part of the queue's and the
 * waits' partial indexes (empty once its messages are at rest).
 */
export async function messageQueueFloor(db: Queryable, now: Date): Promise<string> {
  const dayBefore = now.getTime() - DAY_MS;
  let floor = NIL_UUID;
  for (const p of await messagePartitions(db)) {
    if (p.isDefault || p.toMs === null) break;
    const ids = messagePartitionIds(p);
    // A gap before the partition is asked apart, so that the floor stops at the partition's start when only it holds
    // one (the plan is the same either way: no partition covers a gap).
    for (const to of ids.from > floor ? [ids.from, ids.to] : [ids.to]) {
      if (uuidTime(to) > dayBefore) return floor;
      const [row] = await db.query<{ moving: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM messages WHERE status = 'sending' AND id >= $1 AND id < $2)
           OR EXISTS (SELECT 1 FROM messages
             WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL AND id >= $1 AND id < $2) AS moving`,
        [floor, to],
      );
      if (row?.moving) return floor;
      floor = to;
    }
  }
  // Ids past the last partition are DEFAULT's, from its end on.
  return floor;
}

/**
 * How often a reader of the {@link QueueFloor} reads the floor again, and looks again past the end of the claim's
 * ids (the clock's time).
 */
export const QUEUE_FLOOR_EVERY_MS = 60_000;

/**
 * The highest UUID (RFC 9562's Max UUID): where the ids a claim reads end when none is left out above. It is itself
 * left out (the end is exclusive), and never an id: Herald stamps version 7 ids.
 */
export const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Every id: the queue of a caller that reads no floor (tests, tools). */
export const EVERY_ID: MessageIdRange = { from: NIL_UUID, to: MAX_UUID };

/**
 * How far past the claim's clock the ids it reads reach: a message is stored with an id of its creation, and one
 * stamped by a process whose clock runs ahead (as the floor's day before, for one that runs behind) is still read.
 */
export const QUEUE_AHEAD_MS = DAY_MS;

/**
 * One message in `sending` with an id from `before` on (any one: no order), or null: stamped by a clock 1 to 8 days
 * ahead or more (by the day of the week: the end is a partition's), a host's gone wrong, or not a version 7 id.
 * `before` is where a week's partition ends, so only the partitions after are read (the weeks made ahead and
 * DEFAULT), through their part of the queue's partial index (near empty).
 */
export async function messageQueueBeyond(db: Queryable, before: string): Promise<QueueBeyond | null> {
  const [row] = await db.query<{ account_id: number; id: string }>(
    `SELECT account_id, id FROM messages WHERE status = 'sending' AND id >= $1 LIMIT 1`,
    [before],
  );
  if (!row) return null;
  // A version 7 id holds its creation's time: the clock that stamped it, days ahead, is what to look for.
  const stampedAt = isUuid7(row.id) ? new Date(uuidTime(row.id)).toISOString() : null;
  return { accountId: row.account_id, messageId: row.id, stampedAt };
}

/** A message found past the claim's ids, named in the warning so that the host whose clock runs ahead can be found. */
export interface QueueBeyond {
  readonly accountId: number;
  readonly messageId: string;
  /** The time its id holds (null: not a version 7 id). */
  readonly stampedAt: string | null;
}

/**
 * Where the ids a claim at `now` reads end while no message waits past them: the first id of the week after the one
 * that holds the day after now, the bound of that week's partition. Pruning keeps or drops whole partitions, so the
 * claim plans the same as with the day's end, and the look past it reads only the partitions after.
 */
export function queueBefore(now: Date): string {
  return uuidBound(partitionWeekOf(now.getTime() + QUEUE_AHEAD_MS) + PARTITION_MS, 'low');
}

/** Whether a read taken at `readAtMs` is read again: a minute on, or at once when the clock went back past it. */
const readAgain = (nowMs: number, readAtMs: number): boolean =>
  nowMs - readAtMs >= QUEUE_FLOOR_EVERY_MS || nowMs < readAtMs;

/**
 * The queue's floor ({@link messageQueueFloor}) as a process reads it (one reader a process, for its queue metrics
 * and, in a worker, its claims and its expiry job), again every {@link QUEUE_FLOOR_EVERY_MS}: without it the claim,
 * the next-due query, the expiry's statements and the queue's figures planned every partition that retention keeps
 * (by default all, one a week), 0.5 ms more a claim for each (docs/scaling.md, Partitions). A floor read a minute
 * ago stays right: it moves only forward, as the old partitions' messages come to rest. A clock set back (one that
 * ran ahead, corrected) is read again at once: a floor read ahead may be above the ids it now stamps.
 */
export class QueueFloor {
  private floor = NIL_UUID;
  /** Never read yet: the first call reads it. */
  private readAtMs = -Infinity;
  /** Whether a message waited past the claim's ids at the last look: they then have no end. */
  private beyond = false;
  private beyondReadAtMs = -Infinity;

  constructor(
    private readonly clock: Clock,
    /** Told when a message is first found past the claim's ids (a clock days ahead somewhere), with one of them. */
    private readonly warn: (found: QueueBeyond, message: string) => void = () => undefined,
  ) {}

  async current(db: Queryable): Promise<string> {
    const now = this.clock.now();
    if (readAgain(now.getTime(), this.readAtMs)) {
      this.floor = await messageQueueFloor(db, now);
      this.readAtMs = now.getTime();
    }
    return this.floor;
  }

  /**
   * The ids a claim reads: from the floor through the week's partition that holds the day after now, so that its
   * plan holds neither DEFAULT nor the weeks made ahead beyond it (docs/scaling.md, "The queue's ceiling"); to the
   * end while a message waited past that at the last look (every {@link QUEUE_FLOOR_EVERY_MS}): such a message waits
   * for the next look, then the submitter's next claim or poll, about a minute.
   */
  async ids(db: Queryable): Promise<MessageIdRange> {
    const from = await this.current(db);
    const now = this.clock.now();
    const before = queueBefore(now);
    if (readAgain(now.getTime(), this.beyondReadAtMs)) {
      const beyond = await messageQueueBeyond(db, before);
      if (beyond && !this.beyond)
        this.warn(
          beyond,
          'a message in sending has an id past the week that holds tomorrow (a clock ahead, or an id not of ' +
            'version 7): the claim reads every id above the floor until none waits there',
        );
      this.beyond = beyond !== null;
      this.beyondReadAtMs = now.getTime();
    }
    return { from, to: this.beyond ? MAX_UUID : before };
  }
}

/** The partition maintenance: week partitions made {@link PARTITION_DAYS_AHEAD} days ahead, every hour. */
export function messageJobs(deps: { db: Db; clock: Clock }): Job[] {
  return [
    {
      name: 'message-partitions',
      everyMs: PARTITION_MAINTENANCE_EVERY_MS,
      run: () => messagePartitionsEnsure(deps.db, deps.clock.now()),
    },
  ];
}

/**
 * The lowest and the highest of `ids` (null, null for none), for a statement on messages found by key to bound
 * their ids with: its plan then holds only the partitions of that span (one, for a batch of messages created
 * together), where a lookup by key alone plans and probes every partition (docs/scaling.md, Partitions).
 */
export function messageIdSpan(ids: readonly { readonly id: string }[]): [string | null, string | null] {
  let lo: string | null = null;
  let hi: string | null = null;
  for (const { id } of ids) {
    // A UUID's order is its bytes', which is its lower-case hex text's.
    const key = id.toLowerCase();
    if (lo === null || key < lo) lo = key;
    if (hi === null || key > hi) hi = key;
  }
  return [lo, hi];
}
