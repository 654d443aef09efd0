import { openPostgres } from '../src/db/postgresDb.js';
import { migrate } from '../src/db/migrate.js';
import type { Queryable } from '../src/db/db.js';
import { claimLimits, messageClaimDue, messageNextDue } from '../src/messages/claimSql.js';
import { messageExpireDue, messageNextExpiry } from '../src/messages/expirySql.js';
import {
  LIST_RECENT_MS,
  messageList,
  messageListCount,
  messageReceiptFacts,
} from '../src/messages/messageLookupSql.js';
import { messageOldestId, messageQueueFigures } from '../src/messages/messageStatisticsSql.js';
import {
  EVERY_ID,
  MAX_UUID,
  messagePartitions,
  messagePartitionsEnsure,
  QueueFloor,
  type MessageIdRange,
} from '../src/messages/messagePartitions.js';
import { uuid7, uuidBound } from '../src/util/uuid7.js';
import { DAY_MS } from '../src/util/time.js';
import { TestClock } from '../test/helpers/clock.js';
import { messageFilter } from '../test/helpers/messageFilter.js';
import { type BenchFigure, createBenchSchema, median } from './lib.js';

const WEEK_MS = 7 * DAY_MS;

/** GET /api/v1/message's filter when a client gives none (outbound messages, every time). */
const LIST_FILTER = messageFilter({ direction: 'outbound' });

/**
 * The planning time (ms) of what `run` sends: each statement planned `times` times (EXPLAIN, never run), the sum of
 * their medians (the claim sends its advisory lock before its statement).
 */
async function planningMs(db: Queryable, run: (explaining: Queryable) => Promise<unknown>, times: number) {
  const measured = new Map<string, number[]>();
  const explaining: Queryable = {
    async query<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      const plans = measured.get(sql) ?? [];
      measured.set(sql, plans);
      for (let i = 0; i < times; i++) {
        const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (SUMMARY) ${sql}`, params);
        const line = rows.map((r) => r['QUERY PLAN']).find((l) => l.startsWith('Planning Time'));
        plans.push(Number(/([\d.]+) ms/.exec(line ?? '')?.[1] ?? NaN));
      }
      return [];
    },
    exec: () => Promise.reject(new Error('single statements only')),
  };
  // What the caller makes of the empty answer may throw (a count reads its one row): the plans are taken by then.
  await run(explaining).catch((error: unknown) => {
    if (measured.size === 0) throw error;
  });
  return [...measured.values()].reduce((sum, plans) => sum + median(plans), 0);
}

/** New connections the claim is planned on, first from cold caches and then again. */
const NEW_CONNECTIONS = 7;

/**
 * The claim's planning on a new connection (a server process that has planned nothing yet: its caches of the
 * catalogue are empty) and then again on it, the medians over {@link NEW_CONNECTIONS} connections: what a pool
 * that closes idle connections pays again for each one it opens (docs/scaling.md, "Connections kept warm").
 */
async function coldClaimPlanning(url: string): Promise<BenchFigure> {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < NEW_CONNECTIONS; i++) {
    const fresh = openPostgres({ url, poolSize: 1 });
    try {
      const claim = (q: Queryable) => messageClaimDue(q, new Date(), claimLimits(500), 60_000);
      cold.push(await planningMs(fresh, claim, 1));
      warm.push(await planningMs(fresh, claim, 1));
    } finally {
      await fresh.close();
    }
  }
  process.stdout.write(
    `  claim-planning: on a new connection ${median(cold).toFixed(2)} ms, then ${median(warm).toFixed(2)} ms\n`,
  );
  return {
    name: 'claim planning on a new connection (cold caches)',
    value: median(cold),
    unit: 'ms',
    note: `median of ${NEW_CONNECTIONS} connections; planned again on each: ${median(warm).toFixed(2)} ms`,
  };
}

/**
 * `BENCH_ONLY=claim-planning`: what PostgreSQL spends planning the submitter's claim and its next-due query as an
 * installation keeps more weeks of messages (one partition a week, kept forever unless HERALD_RETENTION_DAYS says
 * otherwise), without and with the queue's floor (messageQueueFloor: only the partitions from the oldest that holds
 * a message not at rest), and with the floor and the ceiling as a submitter reads them (QueueFloor.ids: no id past
 * the week of tomorrow, so neither DEFAULT nor the weeks made ahead); the expiry's statements and the queue's
 * figures without and with the floor; the read of the SMPP receipts' messages (bounded by their span of ids); a
 * message list's newest page without time bounds (the whole list's statement, and the look at the last week that
 * finds a busy account's page), its total's read of the account's oldest message, and a count of two days. A fresh
 * schema of the local server, its partitions made as `weeks` of running would have made them, the queue empty; each
 * statement planned `times` times (EXPLAIN, not run), the median. The target: with the floor and the ceiling, a year
 * of weeks plans the claim in at most 1.5 times what a fresh installation's takes.
 */
export async function benchClaimPlanning(options: { weeks: readonly number[]; times: number }): Promise<BenchFigure[]> {
  const schema = await createBenchSchema();
  const db = openPostgres({ url: schema.url, poolSize: 1 });
  const figures: BenchFigure[] = [];
  try {
    await migrate(db);
    figures.push(await coldClaimPlanning(schema.url));
    const start = Date.now();
    let fresh = NaN;
    let made = 0;
    for (const weeks of options.weeks) {
      for (; made <= weeks; made++) await messagePartitionsEnsure(db, new Date(start + made * WEEK_MS));
      const now = new Date(start + weeks * WEEK_MS);
      const partitions = (await messagePartitions(db)).length;
      // The ids a submitter's claims read: from the floor up to the end of the week of tomorrow (the ceiling).
      const ids = await new QueueFloor(new TestClock(now)).ids(db);
      const floor = ids.from;
      const floorOnly: MessageIdRange = { from: floor, to: MAX_UUID };
      const claim = (claimIds: MessageIdRange) => (q: Queryable) =>
        messageClaimDue(q, now, claimLimits(500), 60_000, claimIds);
      const without = await planningMs(db, claim(EVERY_ID), options.times);
      const withFloorOnly = await planningMs(db, claim(floorOnly), options.times);
      const withIds = await planningMs(db, claim(ids), options.times);
      const nextWithout = await planningMs(db, (q) => messageNextDue(q), options.times);
      const nextWithFloorOnly = await planningMs(db, (q) => messageNextDue(q, floorOnly), options.times);
      const nextWithIds = await planningMs(db, (q) => messageNextDue(q, ids), options.times);
      // The expiry job's two statements (at most once a second while lifetimes end): the sum of their medians.
      const expiry = async (floorId?: string) =>
        (await planningMs(db, (q) => messageNextExpiry(q, floorId), options.times)) +
        (await planningMs(
          db,
          (q) => messageExpireDue(q, now, 1000, { noReceipt: 1 }, undefined, floorId),
          options.times,
        ));
      const expiryWithout = await expiry();
      const expiryWith = await expiry(floor);
      // The queue's figures (the metrics, at most once a second a process while scraped).
      const figuresWithout = await planningMs(db, (q) => messageQueueFigures(q, now), options.times);
      const figuresWith = await planningMs(db, (q) => messageQueueFigures(q, now, floor), options.times);
      // The SMPP receipts' messages, by key within their span of ids (a minute of this week's).
      const keys = [0, 60_000].map((ms) => ({ account_id: 1, message_id: uuid7(now.getTime() - ms) }));
      const receipts = await planningMs(db, (q) => messageReceiptFacts(q, keys), options.times);
      // A message list's first page without time bounds (GET /api/v1/message as a client asks it most), its total's
      // oldest-message read and its count of the last two days.
      const list = await planningMs(db, (q) => messageList(q, 1, LIST_FILTER, 'desc', 100, 0), options.times);
      // The same page found in the last week (messageList's first look, given the time).
      const lastWeek = Object.assign({}, LIST_FILTER, { fromId: uuidBound(now.getTime() - LIST_RECENT_MS, 'low') });
      const recentList = await planningMs(db, (q) => messageList(q, 1, lastWeek, 'desc', 100, 0), options.times);
      const oldest = await planningMs(db, (q) => messageOldestId(q, 1), options.times);
      const count = await planningMs(
        db,
        (q) => messageListCount(q, 1, LIST_FILTER, [[uuidBound(now.getTime() - 2 * DAY_MS, 'low'), null]]),
        options.times,
      );
      if (weeks === options.weeks[0]) fresh = withIds;
      process.stdout.write(
        `  claim-planning: ${weeks} weeks run, ${partitions} partitions: the claim ${without.toFixed(2)} ms without ` +
          `the floor, ${withFloorOnly.toFixed(2)} ms with it, ${withIds.toFixed(2)} ms with the floor and the ` +
          `ceiling; the next-due query ${nextWithout.toFixed(2)} -> ${nextWithFloorOnly.toFixed(2)} -> ` +
          `${nextWithIds.toFixed(2)} ms; the expiry's statements ${expiryWithout.toFixed(2)} -> ` +
          `${expiryWith.toFixed(2)} ms; the queue's figures ${figuresWithout.toFixed(2)} -> ` +
          `${figuresWith.toFixed(2)} ms; ` +
          `the SMPP receipts' messages ${receipts.toFixed(2)} ms; a message list's page ${list.toFixed(2)} ms ` +
          `(${recentList.toFixed(2)} ms found in the last week), its ` +
          `oldest message ${oldest.toFixed(2)} ms, its count of two days ${count.toFixed(2)} ms\n`,
      );
      figures.push(
        {
          name: `claim planning, ${weeks} weeks kept (${partitions} partitions), without the floor`,
          value: without,
          unit: 'ms',
          note: `median of ${options.times} plans; the next-due query ${nextWithout.toFixed(2)} ms`,
        },
        {
          name: `claim planning, ${weeks} weeks kept (${partitions} partitions), with the floor only`,
          value: withFloorOnly,
          unit: 'ms',
          note: `median of ${options.times} plans; the next-due query ${nextWithFloorOnly.toFixed(2)} ms`,
        },
        {
          name: `claim planning, ${weeks} weeks kept (${partitions} partitions), with the floor and the ceiling`,
          value: withIds,
          unit: 'ms',
          ...(weeks === options.weeks.at(-1) && weeks > 0 ? { target: { op: '<=' as const, value: fresh * 1.5 } } : {}),
          note:
            `median of ${options.times} plans; the next-due query ${nextWithIds.toFixed(2)} ms, the expiry's ` +
            `statements ${expiryWith.toFixed(2)} ms, the SMPP receipts' messages ${receipts.toFixed(2)} ms`,
        },
      );
    }
  } finally {
    await db.close();
    await schema.drop();
  }
  return figures;
}
