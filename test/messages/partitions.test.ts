import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../src/db/db.js';
import { retentionSweep } from '../../src/retention/retention.js';
import { claimLimits } from '../../src/messages/claimSql.js';
import {
  messageClaimDue,
  messageExpireDue,
  messageInsertInbound,
  messageNextDue,
  messageNextExpiry,
  messagePartitionsEnsure,
  messageQueueFigures,
  messageReceiptFacts,
} from '../../src/messages/index.js';
import {
  messageApplyTransitions,
  messageCountDeliveredParts,
  messageLockOrdered,
  messageNoteIgnored,
} from '../../src/messages/transitionSql.js';
import { sentTransition, statusTransition } from '../../src/messages/transitions.js';
import {
  destinationPartitionOf,
  messageIdSpan,
  messagePartitions,
  messageQueueBeyond,
  messageQueueFloor,
  NIL_UUID,
  PARTITION_MS,
  partitionWeekOf,
  MAX_UUID,
  QUEUE_AHEAD_MS,
  QUEUE_FLOOR_EVERY_MS,
  QueueFloor,
  type MessageIdRange,
  type QueueBeyond,
  queueBefore,
} from '../../src/messages/messagePartitions.js';
import { LIST_RECENT_MS, messageList, messageListCount } from '../../src/messages/messageLookupSql.js';
import { messageInsertBatch, type NewMessage } from '../../src/messages/messageSql.js';
import { rollUpStatistics } from '../../src/statistics/rollup.js';
import { statistics } from '../../src/statistics/statistics.js';
import { dayOf } from '../../src/util/time.js';
import { uuid7, uuidBound, uuidTime } from '../../src/util/uuid7.js';
import { insertAccount, insertMessage, newMessage } from '../factories/rows.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb, withTestDb } from '../helpers/engines.js';
import { messageFilter } from '../helpers/messageFilter.js';
import { indexesOf, planOf, relationsOf, scansOf, subplanNodes } from '../helpers/plans.js';
import { messageRows, messagesSet } from '../helpers/messageRows.js';

const DAY_MS = 86_400_000;
const at = (iso: string, days = 0): Date => new Date(Date.parse(iso) + days * DAY_MS);

/** The partition that holds a message, by its row's tableoid. */
async function partitionOf(db: Db, id: string): Promise<string | undefined> {
  const [row] = await db.query<{ name: string }>(
    'SELECT tableoid::regclass::text AS name FROM messages WHERE id = $1',
    [id],
  );
  return row?.name;
}

/** The partition that holds a message's destination (the list's search), by its row's tableoid. */
async function destinationPartitionOfRow(db: Db, id: string): Promise<string | undefined> {
  const [row] = await db.query<{ name: string }>(
    'SELECT tableoid::regclass::text AS name FROM message_destinations WHERE id = $1',
    [id],
  );
  return row?.name;
}

/** The partitions of messages a plan reads. */
const partitionsIn = (plan: Parameters<typeof relationsOf>[0]): string[] =>
  [...relationsOf(plan)].filter((n) => n.startsWith('messages_'));

/** The partitions of messages `run`'s statement plans (`asDb`: run as outside a transaction). */
const partitionsPlanned = async (db: Db, run: (explaining: Queryable) => Promise<unknown>, asDb = false) =>
  partitionsIn(await planOf(db, run, { partitions: true, asDb }));

/** The names of the partitions of messages (or of `parent`) in the catalogue (pg_inherits). */
async function inherited(db: Db, parent = 'messages'): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [parent],
  );
  return rows.map((r) => r.name);
}

// Each block has a database of its own and years no other block uses: partitions are the database's, not a test's.
describe.each(ENGINES)('partitions of messages (%s)', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('has the table of before partitioning and DEFAULT after the migration', async () => {
    const partitions = await messagePartitions(t.db);
    expect(partitions.map((p) => p.name)).toEqual(expect.arrayContaining(['messages_legacy', 'messages_default']));
    const legacy = partitions.find((p) => p.name === 'messages_legacy')!;
    expect(legacy.fromMs).toBeNull();
    // It ends at a UTC midnight (the day after the migration ran).
    expect(legacy.toMs! % DAY_MS).toBe(0);
    expect(partitions.at(-1)).toMatchObject({ name: 'messages_default', isDefault: true });
    // The destinations (the list's search) are partitioned alike, partition for partition.
    expect(await inherited(t.db, 'message_destinations')).toEqual(
      (await inherited(t.db)).map((name) => destinationPartitionOf(name)).sort(),
    );
  });

  it('makes the weeks of today and 7 days ahead once, and moves what DEFAULT held of them into them', async () => {
    const { id: accountId } = await insertAccount(t.db);
    // A Friday: its week (from Monday 2041-05-06) and the next one cover the 7 days ahead.
    const now = at('2041-05-10T12:00:00Z');
    // Before any partition of 2041: DEFAULT takes the message.
    const early = await insertMessage(t.db, { accountId, status: 'delivered', createdAt: at('2041-05-12T08:00:00Z') });
    expect(await partitionOf(t.db, early)).toBe('messages_default');

    const created = await messagePartitionsEnsure(t.db, now);
    expect(created).toEqual(['messages_p20410506', 'messages_p20410513']);
    expect(await inherited(t.db)).toEqual(expect.arrayContaining(created));
    expect(await partitionOf(t.db, early)).toBe('messages_p20410506');
    expect(await inherited(t.db, 'message_destinations')).toEqual(
      expect.arrayContaining(['message_destinations_p20410506', 'message_destinations_p20410513']),
    );
    expect(await destinationPartitionOfRow(t.db, early)).toBe('message_destinations_p20410506');
    const week = (await messagePartitions(t.db)).find((p) => p.name === 'messages_p20410506')!;
    expect([week.fromMs, week.toMs]).toEqual([Date.parse('2041-05-06'), Date.parse('2041-05-13')]);

    // Again until the 7 days ahead reach the next week: nothing to make; then one more.
    expect(await messagePartitionsEnsure(t.db, at('2041-05-12T23:59:59Z'))).toEqual([]);
    expect(await messagePartitionsEnsure(t.db, at('2041-05-13T00:00:00Z'))).toEqual(['messages_p20410520']);
    // A message of a covered week goes there; one past the last partition goes to DEFAULT.
    const inWeek = await insertMessage(t.db, { accountId, createdAt: at('2041-05-26T23:59:59.999Z') });
    const beyond = await insertMessage(t.db, { accountId, createdAt: at('2041-05-27T00:00:00Z') });
    expect(await partitionOf(t.db, inWeek)).toBe('messages_p20410520');
    expect(await partitionOf(t.db, beyond)).toBe('messages_default');
    expect(await destinationPartitionOfRow(t.db, inWeek)).toBe('message_destinations_p20410520');
    expect(await destinationPartitionOfRow(t.db, beyond)).toBe('message_destinations_default');
  });

  it('keeps the destinations partitioned as messages where a process of before made or dropped a week', async () => {
    const { id: accountId } = await insertAccount(t.db);
    // As a process of before makes it: a partition of messages alone. Its destinations land in DEFAULT meanwhile.
    const [from, to] = [uuidBound(Date.parse('2042-01-06'), 'low'), uuidBound(Date.parse('2042-01-13'), 'low')];
    await t.db.exec(`CREATE TABLE messages_p20420106 PARTITION OF messages FOR VALUES FROM ('${from}') TO ('${to}')`);
    const id = await insertMessage(t.db, { accountId, status: 'delivered', createdAt: at('2042-01-07T10:00:00Z') });
    expect(await partitionOf(t.db, id)).toBe('messages_p20420106');
    expect(await destinationPartitionOfRow(t.db, id)).toBe('message_destinations_default');

    expect(await messagePartitionsEnsure(t.db, at('2042-01-07T12:00:00Z'))).toEqual(['messages_p20420113']);
    expect(await inherited(t.db, 'message_destinations')).toEqual(
      expect.arrayContaining(['message_destinations_p20420106', 'message_destinations_p20420113']),
    );
    expect(await destinationPartitionOfRow(t.db, id)).toBe('message_destinations_p20420106');

    // Its retention dropped a week of messages without its destinations: the next run drops them.
    await t.db.exec('DROP TABLE messages_p20420106');
    expect(await messagePartitionsEnsure(t.db, at('2042-01-13T12:00:00Z'))).toEqual(['messages_p20420120']);
    expect(await inherited(t.db, 'message_destinations')).not.toContain('message_destinations_p20420106');
    expect(await inherited(t.db, 'message_destinations')).toContain('message_destinations_p20420113');
  });

  it('makes the rest of the week the table of before partitioning ends in', async () => {
    const legacy = (await messagePartitions(t.db)).find((p) => p.name === 'messages_legacy')!;
    // Asked on the day the table of before ends at: its week may have begun in that table (the rest is made) or begin
    // that day (when the migration ran on a Sunday: the whole week is made); either way from the table's end.
    const created = await messagePartitionsEnsure(t.db, new Date(legacy.toMs!), 0);
    expect(created).toEqual([`messages_p${dayOf(legacy.toMs!).replaceAll('-', '')}`]);
    const rest = (await messagePartitions(t.db)).find((p) => p.name === created[0])!;
    expect([rest.fromMs, rest.toMs]).toEqual([legacy.toMs, partitionWeekOf(legacy.toMs!) + PARTITION_MS]);
  });

  it('keeps DEFAULT out of the drops: its old finished messages go one by one, its running ones stay', async () => {
    const { id: accountId } = await insertAccount(t.db);
    // 2043: no day partition, the messages are DEFAULT's.
    const finished = await insertMessage(t.db, {
      accountId,
      status: 'delivered',
      createdAt: at('2043-01-01T10:00:00Z'),
    });
    const running = await insertMessage(t.db, {
      accountId,
      status: 'sent',
      createdAt: at('2043-01-01T10:00:00Z'),
      dueAt: at('2043-03-01T00:00:00Z'),
    });
    expect(await partitionOf(t.db, finished)).toBe('messages_default');
    await t.db.query(`UPDATE stats_rollup_state SET rolled_until = '2043-01-20'`);
    await t.db.query(`INSERT INTO stats_rollup_state (rolled_until) SELECT '2043-01-20' WHERE NOT EXISTS (
      SELECT 1 FROM stats_rollup_state)`);

    const result = await retentionSweep(t.db, at('2043-01-10T00:00:00Z'));

    expect(await partitionOf(t.db, finished)).toBeUndefined();
    expect(await partitionOf(t.db, running)).toBe('messages_default');
    expect(await destinationPartitionOfRow(t.db, finished)).toBeUndefined();
    expect(await destinationPartitionOfRow(t.db, running)).toBe('message_destinations_default');
    expect(result.messages).toBeGreaterThanOrEqual(1);
    expect(await inherited(t.db)).toContain('messages_default');
  });
});

describe.each(ENGINES)('retention by partitions (%s)', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('drops the oldest week of 30 days whole with its short links and keys; the statistics stay the same', async () => {
    const db = t.db;
    // A Monday: 5 week partitions cover the 30 days, made ahead as the maintenance would have.
    const day0 = at('2031-01-06T00:00:00Z');
    expect(await messagePartitionsEnsure(db, day0, 30)).toHaveLength(5);
    const { id: accountId } = await insertAccount(db);
    const statuses = ['delivered', 'undelivered', 'delivered', 'unsent'] as const;
    const ids: string[][] = [];
    for (let d = 0; d < 30; d++) {
      ids.push([]);
      for (const [i, status] of statuses.entries()) {
        ids[d]!.push(
          await insertMessage(db, {
            accountId,
            status,
            createdAt: at('2031-01-06T06:00:00Z', d + i / 10),
            price: d + i,
            senderName: i % 2 === 0 ? 'Shop' : 'Bank',
          }),
        );
      }
    }
    // Week 2 keeps one message waiting (a lifetime running past the cutoff): its partition is not dropped.
    const waiting = await insertMessage(db, {
      accountId,
      status: 'sent',
      createdAt: at('2031-01-14T07:00:00Z'),
      dueAt: at('2031-03-01T00:00:00Z'),
    });
    for (const [code, messageId] of [
      ['week1', ids[0]![0]!],
      ['week3', ids[14]![0]!],
    ])
      await db.query(
        `INSERT INTO short_links (code, account_id, message_id, url, created_at)
         VALUES ($1, $2, $3, 'https://a.example', $4)`,
        [code, accountId, messageId, day0],
      );
    const inbound = await messageInsertInbound(db, inboundOf(accountId, 'week1-inbound', at('2031-01-06T09:00:00Z')));
    expect(await partitionOf(db, inbound!.id)).toBe('messages_p20310106');
    expect(await destinationPartitionOfRow(db, inbound!.id)).toBe('message_destinations_p20310106');

    // The month rolled up (two days settle; at most 31 days a run).
    const now = at('2031-02-08T00:00:00Z');
    for (;;) if ((await rollUpStatistics(db, now)).days === 0) break;
    const figures = () =>
      statistics(db, accountId, day0, at('2031-02-05T00:00:00Z'), 'day', {
        channelType: null,
        senderName: null,
        status: null,
        tag: null,
        trafficType: null,
      });
    const before = await figures();
    expect(before.total.messages).toBe(121);

    // Keep from week 3: weeks 1 and 2 are past the cutoff; week 1 goes whole, week 2 (still waiting) row by row.
    const cutoff = at('2031-01-20T00:00:00Z');
    const result = await retentionSweep(db, cutoff);

    expect(result.partitions).toBeGreaterThanOrEqual(1);
    expect(result.messages).toBe(28);
    const names = await inherited(db);
    expect(names).not.toContain('messages_p20310106');
    expect(await inherited(db, 'message_destinations')).not.toContain('message_destinations_p20310106');
    expect(names).toContain('messages_p20310113');
    expect(names).toContain('messages_p20310120');
    const [gone] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace`,
      ['messages_p20310106'],
    );
    expect(gone!.n).toBe(0);
    expect(await partitionOf(db, waiting)).toBe('messages_p20310113');
    for (const id of ids.slice(0, 14).flat()) {
      expect(await partitionOf(db, id)).toBeUndefined();
      expect(await destinationPartitionOfRow(db, id)).toBeUndefined();
    }
    expect(await partitionOf(db, ids[14]![0]!)).toBe('messages_p20310120');
    expect(await destinationPartitionOfRow(db, ids[14]![0]!)).toBe('message_destinations_p20310120');
    expect(await destinationPartitionOfRow(db, waiting)).toBe('message_destinations_p20310113');
    expect(await figures()).toEqual(before);
    const links = await db.query<{ code: string }>('SELECT code FROM short_links WHERE account_id = $1', [accountId]);
    expect(links.map((l) => l.code)).toEqual(['week3']);
    const keys = await db.query('SELECT key FROM message_keys WHERE account_id = $1', [accountId]);
    expect(keys).toEqual([]);

    // Once week 2's last message has finished, the next run drops its partition too.
    await messagesSet(db, { accountId, ids: [waiting] }, { status: 'delivered', due_at: null });
    // Not while the day is counted live (changed since its rollup, until the rollup redoes it).
    await db.query(`INSERT INTO stats_dirty_days (account_id, day) VALUES ($1, '2031-01-14')`, [accountId]);
    expect((await retentionSweep(db, cutoff)).partitions).toBe(0);
    await db.query('DELETE FROM stats_dirty_days WHERE account_id = $1', [accountId]);
    expect((await retentionSweep(db, cutoff)).partitions).toBe(1);
    expect(await inherited(db)).not.toContain('messages_p20310113');
    // A cutoff within week 3 deletes none of its messages one by one: the week goes whole once past.
    expect(await retentionSweep(db, at('2031-01-23T00:00:00Z'))).toMatchObject({ partitions: 0, messages: 0 });
    expect(await partitionOf(db, ids[14]![0]!)).toBe('messages_p20310120');
  });
});

describe.runIf(ENGINES.includes('postgres'))('a drop that cannot have its lock (postgres)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb('postgres');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('gives up after the lock timeout, leaves the week whole, and drops it on the next run', async () => {
    const db = t.db;
    await messagePartitionsEnsure(db, at('2033-04-04T00:00:00Z'), 1);
    const { id: accountId } = await insertAccount(db);
    const id = await insertMessage(db, { accountId, status: 'delivered', createdAt: at('2033-04-04T10:00:00Z') });
    await db.query(`INSERT INTO stats_rollup_state (rolled_until) VALUES ('2033-04-20')`);
    // A long transaction that has read messages (a report): its lock outlasts the drop's 2 s.
    const reader = new pg.Client({ connectionString: t.url, options: `-c search_path=${t.schema}` });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM messages');
      const result = await retentionSweep(db, at('2033-04-12T00:00:00Z'));
      expect(result.partitions).toBe(0);
      expect(await partitionOf(db, id)).toBe('messages_p20330404');
    } finally {
      await reader.query('ROLLBACK');
      await reader.end();
    }
    expect((await retentionSweep(db, at('2033-04-12T00:00:00Z'))).partitions).toBeGreaterThanOrEqual(1);
    expect(await inherited(db)).not.toContain('messages_p20330404');
  });
});

function inboundOf(accountId: number, providerId: string, when: Date) {
  return {
    accountId,
    id: uuid7(when.getTime()),
    at: when,
    trafficCenterId: 1,
    senderName: 'Shop',
    subscriber: '79161234567',
    country: 'RU',
    text: 'hi',
    providerMessageId: `wa:${providerId}`,
    currency: 'RUB',
  };
}

describe.each(ENGINES)('once per key across partitions (%s)', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
    // Weeks from Monday 2035-06-04 and 2035-06-11.
    await messagePartitionsEnsure(t.db, at('2035-06-04T00:00:00Z'), 10);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('stores an inbound message once per provider id, though sent again in another week or at once', async () => {
    const { id: accountId } = await insertAccount(t.db);
    const first = await messageInsertInbound(t.db, inboundOf(accountId, 'p1', at('2035-06-10T23:59:00Z')));
    expect(await partitionOf(t.db, first!.id)).toBe('messages_p20350604');
    // The same webhook the next week: another partition, which a unique index of the partitioned table cannot see.
    expect(await messageInsertInbound(t.db, inboundOf(accountId, 'p1', at('2035-06-11T00:01:00Z')))).toBeUndefined();
    // Ten at once (on PostgreSQL, ten connections of the pool racing): one is stored.
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        messageInsertInbound(t.db, inboundOf(accountId, 'p2', at('2035-06-05T12:00:00Z', i / 5))),
      ),
    );
    expect(racing.filter((r) => r !== undefined)).toHaveLength(1);
    const [count] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND provider_message_id IN ('wa:p1', 'wa:p2')`,
      [accountId],
    );
    expect(count!.n).toBe(2);
    // Another account may have the same provider id.
    const { id: other } = await insertAccount(t.db);
    expect(await messageInsertInbound(t.db, inboundOf(other, 'p1', at('2035-06-11T00:02:00Z')))).toBeDefined();
  });

  it('creates a cascade step once: the same step again, in another week or at once, fails its statement', async () => {
    const { id: accountId } = await insertAccount(t.db);
    const cascade = uuid7(Date.parse('2035-06-05T10:00:00Z'));
    const step = (when: Date, n: number): Promise<void> =>
      insertBatch(t.db, accountId, when, [stepMessage(uuid7(when.getTime()), when, { id: cascade, step: n })]);
    await step(at('2035-06-05T10:00:00Z'), 1);
    await step(at('2035-06-05T11:00:00Z'), 2);
    // Step 2 again a week later, in the next partition.
    await expect(step(at('2035-06-12T11:00:00Z'), 2)).rejects.toThrow(/message_keys_pkey|duplicate key/);
    // Step 3 five times at once: one is created.
    const racing = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => step(at('2035-06-12T12:00:00Z', i / 3), 3)),
    );
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rows = await t.db.query<{ step: number }>(
      'SELECT cascade_step AS step FROM messages WHERE account_id = $1 AND cascade_id = $2 ORDER BY 1',
      [accountId, cascade],
    );
    expect(rows.map((r) => r.step)).toEqual([1, 2, 3]);
  });

  it('stores a batch larger than a statement in several, every message whole and with its own content', async () => {
    const { id: accountId } = await insertAccount(t.db);
    const when = at('2035-07-02T10:00:00Z');
    // 600 rows of some 1,200 bytes each: more than one statement's 512 KiB.
    const messages = Array.from({ length: 600 }, (_, i): NewMessage => {
      const id = uuid7(when.getTime() + i);
      const step = stepMessage(id, when, { id, step: 1 });
      return { ...step, cascade: undefined, message: { ...step.message, content: `${i} ${'я'.repeat(1000)}` } };
    });
    let statements = 0;
    const counting: Queryable = {
      query: <R>(sql: string, params?: readonly unknown[]) => {
        statements++;
        return t.db.query<R>(sql, params);
      },
      exec: (sql) => t.db.exec(sql),
    };
    await insertBatch(counting, accountId, when, messages);
    expect(statements).toBe(2);
    const rows = await t.db.query<{ id: string; content: string }>(
      'SELECT id, content FROM messages WHERE account_id = $1 ORDER BY id',
      [accountId],
    );
    expect(rows.map((r) => [r.id, r.content])).toEqual(messages.map((m) => [m.id, m.message.content]));
  });

  it('claims and moves only its own rows, though a row of another week sits at the same TID', async () => {
    // A database of its own: a claim takes whatever is due, and this one must see only its two messages.
    const own = await openTestDb(engine);
    try {
      const { db } = own;
      const { id: accountId } = await insertAccount(db);
      await messagePartitionsEnsure(db, at('2043-03-04T12:00:00Z'));
      const first = await insertMessage(db, { accountId, createdAt: at('2043-03-04T12:00:00Z') });
      const second = await insertMessage(db, { accountId, createdAt: at('2043-03-10T12:00:00Z') });
      const place = async (id: string) =>
        (
          await db.query<{ part: string; tid: string }>(
            'SELECT tableoid::regclass::text AS part, ctid::text AS tid FROM messages WHERE id = $1',
            [id],
          )
        )[0]!;
      const [a, b] = [await place(first), await place(second)];
      // The premise: two weeks, the same TID (a TID names a row within its partition only).
      expect(a.part).not.toBe(b.part);
      expect(a.tid).toBe(b.tid);
      const state = async (id: string) =>
        (
          await db.query<{ status: string; attempts: number }>(
            `SELECT status, attempts FROM ${messageRows()} WHERE id = $1`,
            [id],
          )
        )[0]!;

      // One place: the claim takes the earlier and leaves the other as it was.
      const claimed = await messageClaimDue(db, at('2043-03-11T00:00:00Z'), claimLimits(1), 60_000);
      expect(claimed.map((m) => m.id)).toEqual([first]);
      expect(await state(second)).toEqual({ status: 'sending', attempts: 0 });
      // A receipt's transition of the one moves it alone.
      const delivered = statusTransition({
        accountId,
        id: first,
        status: 'delivered',
        at: at('2043-03-11T00:00:01Z'),
        errorCode: null,
      });
      expect([...(await messageApplyTransitions(db, [delivered]))]).toEqual([]);
      expect((await state(first)).status).toBe('delivered');
      expect(await state(second)).toEqual({ status: 'sending', attempts: 0 });
    } finally {
      await own.drop();
    }
  });

  it("reads receipts' messages by key in several weeks and DEFAULT, planning only their span's weeks", async () => {
    const { id: accountId } = await insertAccount(t.db);
    const other = (await insertAccount(t.db)).id;
    await messagePartitionsEnsure(t.db, at('2046-05-02T12:00:00Z'));
    const created = [at('2046-05-02T12:00:00Z'), at('2046-05-08T12:00:00Z'), at('2047-09-01T00:00:00Z')];
    const ids: string[] = [];
    for (const [i, createdAt] of created.entries())
      ids.push(
        await insertMessage(t.db, { accountId, createdAt, destination: `7916000000${i}`, content: `text ${i}` }),
      );
    expect(await partitionOf(t.db, ids[2]!)).toBe('messages_default');
    // Not found: an id no message has, another account's key.
    const keys = [...ids, uuid7(at('2046-05-03T00:00:00Z').getTime())].map((id) => ({
      account_id: accountId,
      message_id: id,
    }));
    const facts = await messageReceiptFacts(t.db, [...keys, { account_id: other, message_id: ids[0]! }]);
    expect([...facts.keys()].sort()).toEqual([...ids].sort());
    expect(facts.get(ids[1]!)).toEqual({
      direction: 'outbound',
      created_at: created[1],
      sender_name: 'Herald',
      destination: '79160000001',
      content: 'text 1',
    });
    expect(await messageReceiptFacts(t.db, [])).toEqual(new Map());

    // One week's messages: that week's partition alone is planned, of the five or more there are.
    const plan = await planOf(t.db, (explaining) => messageReceiptFacts(explaining, keys.slice(0, 1)), {
      partitions: true,
    });
    expect((await inherited(t.db)).length).toBeGreaterThanOrEqual(5);
    expect(partitionsIn(plan)).toEqual([await partitionOf(t.db, ids[0]!)]);

    // A batch of receipts (a thousand keys of a few minutes, statistics or none): a probe of the primary key a key,
    // never a read of the span's messages (every account's) to hash them.
    const start = at('2046-05-03T00:00:00Z').getTime();
    const many = Array.from({ length: 1000 }, (_, i) => ({
      account_id: accountId,
      message_id: uuid7(start + i * 300),
    }));
    const batch = await planOf(t.db, (explaining) => messageReceiptFacts(explaining, many));
    const scans = [...relationsOf(batch)].filter((n) => n.startsWith('messages')).flatMap((n) => scansOf(batch, n));
    expect(scans).toEqual(['Index Scan messages_pkey']);
    expect(batch['Node Type']).toBe('Nested Loop');
  });

  it('moves a batch whose messages lie in several weeks and DEFAULT, bounded by their span of ids', async () => {
    const { id: accountId } = await insertAccount(t.db);
    await messagePartitionsEnsure(t.db, at('2044-05-04T12:00:00Z'));
    const created = [at('2044-05-04T12:00:00Z'), at('2044-05-10T12:00:00Z'), at('2049-01-01T00:00:00Z')];
    const ids: string[] = [];
    for (const createdAt of created) ids.push(await insertMessage(t.db, { accountId, createdAt }));
    const parts = new Set(await Promise.all(ids.map((id) => partitionOf(t.db, id))));
    // The premise: three partitions, the last DEFAULT (no week covers 2049).
    expect(parts.size).toBe(3);
    expect(parts.has('messages_default')).toBe(true);
    // Upper-case ids bound the span as their lower-case text does (a UUID's order is its bytes').
    expect(messageIdSpan(ids.map((id) => ({ id: id.toUpperCase() })))).toEqual([ids[0], ids[2]]);
    const unsent = ids.map((id) =>
      statusTransition({ accountId, id, status: 'unsent', at: at('2049-01-01T00:00:01Z'), errorCode: 1 }),
    );
    expect([...(await messageApplyTransitions(t.db, unsent))]).toEqual([]);
    const rows = await t.db.query<{ status: string }>(
      `SELECT status FROM ${messageRows()} WHERE account_id = $1 AND id = ANY($2::uuid[])`,
      [accountId, ids],
    );
    expect(rows.map((r) => r.status)).toEqual(['unsent', 'unsent', 'unsent']);

    // A batch of one week's messages: it reads that week's partition alone, of the five there are, both where it
    // finds its rows and where it updates them (and so do the receipts' statements that lock or count them).
    const week = await insertMessage(t.db, { accountId, createdAt: at('2044-05-04T13:00:00Z') });
    const weekOnly = [await partitionOf(t.db, week)];
    const unsentWeek = [
      statusTransition({ accountId, id: week, status: 'unsent', at: at('2044-05-04T13:00:01Z'), errorCode: 1 }),
    ];
    const plan = await planOf(t.db, (explaining) => messageApplyTransitions(explaining, unsentWeek), {
      partitions: true,
    });
    expect((await inherited(t.db)).length).toBeGreaterThanOrEqual(5);
    expect(subplanNodes(plan, 'CTE moved').filter((n) => n.type === 'Tid Scan')).toHaveLength(1);
    expect(partitionsIn(plan)).toEqual(weekOnly);
    expect(
      await partitionsPlanned(t.db, (explaining) => messageApplyTransitions(explaining, unsentWeek), true),
    ).toEqual(weekOnly);
    const key = { accountId, id: week };
    expect(await partitionsPlanned(t.db, (explaining) => messageLockOrdered(explaining, [key]))).toEqual(weekOnly);
    expect(
      await partitionsPlanned(t.db, (explaining) =>
        messageCountDeliveredParts(explaining, [{ ...key, connectorId: 'smsc', parts: 1 }]),
      ),
    ).toEqual(weekOnly);
    expect(
      await partitionsPlanned(t.db, (explaining) =>
        messageNoteIgnored(explaining, [{ ...key, status: 'delivered', at: at('2044-05-04T13:00:02Z') }]),
      ),
    ).toEqual(weekOnly);
  });
});

describe("the end of the claim's ids", () => {
  it('is the bound of the week partition that holds the day after now, whatever the day', () => {
    const nextMonday = uuidBound(Date.parse('2054-09-14T00:00:00Z'), 'low');
    // A Saturday's last millisecond: tomorrow is this week's Sunday.
    expect(queueBefore(at('2054-09-12T23:59:59.999Z'))).toBe(nextMonday);
    // A Sunday: tomorrow is the next week's Monday, whose partition ends a week later.
    expect(queueBefore(at('2054-09-13T00:00:00Z'))).toBe(uuidBound(Date.parse('2054-09-21T00:00:00Z'), 'low'));
    expect(queueBefore(at('2054-09-08T00:00:00Z'))).toBe(nextMonday);
  });
});

// The floor is the database's (every partition, every message not at rest): each test has a database of its own.
describe.each(ENGINES)("the queue's floor (%s)", (engine) => {
  it('passes weeks whose messages are at rest, never the day before now; the claim and expiry plan from there', () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      for (let day = 0; day <= 28; day += 7) await messagePartitionsEnsure(t.db, at('2051-03-01T12:00:00Z', day));
      const early = await insertMessage(t.db, { accountId, createdAt: at('2051-03-02T12:00:00Z') });
      const later = await insertMessage(t.db, { accountId, createdAt: at('2051-03-16T12:00:00Z') });
      const now = at('2051-03-29T12:00:00Z');
      const weekStart = (iso: string): string => uuidBound(partitionWeekOf(Date.parse(iso)), 'low');
      const done = (id: string) =>
        messageApplyTransitions(t.db, [statusTransition({ accountId, id, status: 'unsent', at: now, errorCode: 1 })]);

      // The oldest week that holds a message in `sending`: the table of before partitioning and the weeks between,
      // all done, are passed.
      expect(await messageQueueFloor(t.db, now)).toBe(weekStart('2051-03-02T12:00:00Z'));
      await done(early);
      expect(await messageQueueFloor(t.db, now)).toBe(weekStart('2051-03-16T12:00:00Z'));
      // Sent, it waits for its receipt (which may send it back to \`sending\` through a reroute) or the end of its
      // lifetime: not at rest yet.
      await messageApplyTransitions(t.db, [sentTransition({ accountId, id: later, connectorId: 'smsc', at: now })]);
      expect(await messageQueueFloor(t.db, now)).toBe(weekStart('2051-03-16T12:00:00Z'));
      await messageApplyTransitions(t.db, [
        statusTransition({ accountId, id: later, status: 'delivered', at: now, errorCode: null }),
      ]);
      // Nothing older waits: the week that reaches into the day before now (a process whose clock runs behind
      // stores messages there) is where it stops.
      const floor = await messageQueueFloor(t.db, now);
      expect(floor).toBe(weekStart('2051-03-28T12:00:00Z'));
      const behind = await insertMessage(t.db, { accountId, createdAt: at('2051-03-28T13:00:00Z') });
      expect(behind >= floor).toBe(true);
      // The claim reads from the floor up to the end of the week of tomorrow.
      const ids = await new QueueFloor(new TestClock(now)).ids(t.db);
      expect(ids).toEqual({ from: floor, to: queueBefore(now) });
      expect((await messageClaimDue(t.db, now, claimLimits(10), 60_000, ids)).map((m) => m.id)).toEqual([behind]);
      expect(await messageNextDue(t.db, ids)).toEqual(at('2051-03-29T12:01:00Z'));

      // The claim and the next-due query plan only the partitions of those ids: without them, every week kept, those
      // made ahead and DEFAULT.
      const partitions = await messagePartitions(t.db);
      const fromFloor = partitions
        .filter((p) => p.isDefault || p.toMs! > partitionWeekOf(Date.parse('2051-03-28T12:00:00Z')))
        .map((p) => p.name)
        .sort();
      const claimed = partitions
        .filter((p) => !p.isDefault && p.toMs! > uuidTime(floor) && p.fromMs! <= now.getTime() + QUEUE_AHEAD_MS)
        .map((p) => p.name)
        .sort();
      expect(partitions.length).toBeGreaterThan(fromFloor.length + 3);
      expect(fromFloor.length).toBeGreaterThan(claimed.length + 1);
      const claim = (claimIds?: MessageIdRange) => (explaining: Queryable) =>
        messageClaimDue(explaining, now, claimLimits(10), 60_000, claimIds);
      expect((await partitionsPlanned(t.db, claim(ids))).sort()).toEqual(claimed);
      expect((await partitionsPlanned(t.db, claim())).sort()).toEqual(partitions.map((p) => p.name).sort());
      expect((await partitionsPlanned(t.db, (explaining) => messageNextDue(explaining, ids))).sort()).toEqual(claimed);
      // The look for messages past the ceiling plans the others alone: the weeks made ahead past it, and DEFAULT.
      const past = partitions.filter((p) => !claimed.includes(p.name) && (p.isDefault || p.fromMs! > uuidTime(floor)));
      expect(past.length).toBeGreaterThan(1);
      expect((await partitionsPlanned(t.db, (explaining) => messageQueueBeyond(explaining, ids.to))).sort()).toEqual(
        past.map((p) => p.name).sort(),
      );
      // So do the expiry's statements.
      expect((await partitionsPlanned(t.db, (explaining) => messageNextExpiry(explaining, floor))).sort()).toEqual(
        fromFloor,
      );
      const expire = (floorId?: string) => (explaining: Queryable) =>
        messageExpireDue(explaining, now, 10, { noReceipt: 1 }, undefined, floorId);
      expect((await partitionsPlanned(t.db, expire(floor))).sort()).toEqual(fromFloor);
      expect((await partitionsPlanned(t.db, expire())).sort()).toEqual(partitions.map((p) => p.name).sort());
      // And the queue's figures (the metrics, the operator's page of connectors), which count the same from there.
      const figures = (floorId?: string) => (explaining: Queryable) => messageQueueFigures(explaining, now, floorId);
      expect((await partitionsPlanned(t.db, figures(floor))).sort()).toEqual(fromFloor);
      expect((await partitionsPlanned(t.db, figures())).sort()).toEqual(partitions.map((p) => p.name).sort());
      const counted = await messageQueueFigures(t.db, now, floor);
      expect(counted.find((f) => f.state === 'waiting')?.messages).toBe(1);
      expect(counted).toEqual(await messageQueueFigures(t.db, now));
    }));

  it('is the first id when the table of before partitioning holds a message in `sending`', () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      await insertMessage(t.db, { accountId, createdAt: at('2026-03-10T09:00:00Z') });
      expect(await messageQueueFloor(t.db, at('2052-01-01T00:00:00Z'))).toBe(NIL_UUID);
    }));

  it('stops at a gap between weeks whose ids DEFAULT holds in `sending`', () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      // January and March made, February not: its ids go to DEFAULT.
      await messagePartitionsEnsure(t.db, at('2055-01-05T12:00:00Z'));
      await messagePartitionsEnsure(t.db, at('2055-03-09T12:00:00Z'));
      const february = await insertMessage(t.db, { accountId, createdAt: at('2055-02-10T12:00:00Z') });
      expect(await partitionOf(t.db, february)).toBe('messages_default');
      const floor = await messageQueueFloor(t.db, at('2055-03-20T12:00:00Z'));
      expect(floor <= february).toBe(true);
      const ids = { from: floor, to: queueBefore(at('2055-03-20T12:00:00Z')) };
      const claimed = await messageClaimDue(t.db, at('2055-03-20T12:00:00Z'), claimLimits(10), 60_000, ids);
      expect(claimed.map((m) => m.id)).toEqual([february]);
    }));

  it("is read again after a minute of the submitter's clock", () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      await messagePartitionsEnsure(t.db, at('2053-06-02T12:00:00Z'));
      const clock = new TestClock('2053-06-20T12:00:00Z');
      const floor = new QueueFloor(clock);
      const first = await floor.current(t.db);
      // A message stored in a week the floor passed (only a clock days behind does that): found at the next read.
      await insertMessage(t.db, { accountId, createdAt: at('2053-06-03T12:00:00Z') });
      clock.advance(QUEUE_FLOOR_EVERY_MS - 1);
      expect(await floor.current(t.db)).toBe(first);
      clock.advance(1);
      expect(await floor.current(t.db)).toBe(uuidBound(partitionWeekOf(Date.parse('2053-06-03T12:00:00Z')), 'low'));
    }));

  it('reads every id above the floor while a message waits past the week of tomorrow, from the next look', () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      // A Tuesday: tomorrow is in this week, whose partition ends on Monday.
      await messagePartitionsEnsure(t.db, at('2054-09-08T12:00:00Z'));
      const clock = new TestClock('2054-09-08T12:00:00Z');
      const warnings: QueueBeyond[] = [];
      const floor = new QueueFloor(clock, (found) => warnings.push(found));
      // Longer than the test: a message claimed stays held.
      const LEASE_MS = 3_600_000;
      const claim = async () =>
        (await messageClaimDue(t.db, clock.now(), claimLimits(10), LEASE_MS, await floor.ids(t.db))).map((m) => m.id);
      const weekEnd = uuidBound(Date.parse('2054-09-14T00:00:00Z'), 'low');
      expect((await floor.ids(t.db)).to).toBe(weekEnd);
      expect(queueBefore(clock.now())).toBe(weekEnd);
      // Stamped by processes whose clocks run three days ahead (this week still: claimed at once) and eight (next
      // week), and one not of version 7 (DEFAULT).
      const dueAt = clock.now();
      const soon = await insertMessage(t.db, { accountId, createdAt: at('2054-09-11T12:00:00Z'), dueAt });
      const ahead = await insertMessage(t.db, { accountId, createdAt: at('2054-09-16T12:00:00Z'), dueAt });
      const other = await insertMessage(t.db, { accountId, id: 'c0ffee00-0000-4000-8000-000000000001', dueAt });
      expect(await partitionOf(t.db, other)).toBe('messages_default');
      expect(await claim()).toEqual([soon]);
      // Until the next look, a minute at most, the others wait; then the claim's ids have no end, and both go.
      // Due now, they are not what the next-due query finds: the end of the claim's lease is.
      expect(await messageNextDue(t.db, await floor.ids(t.db))).toEqual(new Date(clock.now().getTime() + LEASE_MS));
      expect(warnings).toEqual([]);
      clock.advance(QUEUE_FLOOR_EVERY_MS);
      expect((await floor.ids(t.db)).to).toBe(MAX_UUID);
      // The warning names one of them, with the time its id holds (none for an id not of version 7).
      expect(warnings).toHaveLength(1);
      expect([
        { accountId, messageId: ahead, stampedAt: '2054-09-16T12:00:00.000Z' },
        { accountId, messageId: other, stampedAt: null },
      ]).toContainEqual(warnings[0]);
      expect((await claim()).sort()).toEqual([ahead, other].sort());
      // Once none waits there, the end comes back at the next look.
      await messageApplyTransitions(
        t.db,
        [soon, ahead, other].map((id) =>
          statusTransition({ accountId, id, status: 'unsent', at: clock.now(), errorCode: 1 }),
        ),
      );
      clock.advance(QUEUE_FLOOR_EVERY_MS);
      expect((await floor.ids(t.db)).to).toBe(weekEnd);
    }));

  it('is read again at once when the clock goes back (one that ran ahead, corrected)', () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      await messagePartitionsEnsure(t.db, at('2056-05-01T12:00:00Z'));
      await messagePartitionsEnsure(t.db, at('2056-05-10T12:00:00Z'));
      const clock = new TestClock('2056-05-20T12:00:00Z');
      const floor = new QueueFloor(clock);
      // Stamped while the clock ran ten days ahead: within the ids read then.
      const dueAt = at('2056-05-10T12:00:00Z');
      const stampedAhead = await insertMessage(t.db, { accountId, createdAt: clock.now(), dueAt });
      const ahead = await floor.ids(t.db);
      expect(stampedAhead < ahead.to).toBe(true);
      // Set back: a message stored now has an id below the floor read ahead, and the one stamped ahead is past the
      // end of the ids of now. Both are read at once, the floor and the look past the end.
      clock.set('2056-05-10T12:00:00Z');
      const stored = await insertMessage(t.db, { accountId, createdAt: clock.now() });
      expect(stored < ahead.from).toBe(true);
      expect(stampedAhead >= queueBefore(clock.now())).toBe(true);
      const ids = await floor.ids(t.db);
      expect(stored >= ids.from).toBe(true);
      expect(ids.to).toBe(MAX_UUID);
      const claimed = await messageClaimDue(t.db, clock.now(), claimLimits(10), 60_000, ids);
      expect(claimed.map((m) => m.id).sort()).toEqual([stored, stampedAhead].sort());
    }));
});

/** Stores `messages` of the account as one API batch at `when`. */
const insertBatch = (db: Queryable, accountId: number, when: Date, messages: NewMessage[]): Promise<void> =>
  messageInsertBatch(db, {
    accountId,
    trafficCenterId: null,
    sendingMethod: 'API',
    currency: 'RUB',
    now: when,
    leaseUntil: when,
    messages,
  });

const stepMessage = (id: string, when: Date, cascade: { id: string; step: number }): NewMessage =>
  newMessage(id, when, { content: 'step', cascade });

describe.each(ENGINES)("the list's search by destination (%s)", (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
    // Weeks from Monday 2037-03-02 and 2037-03-09.
    await messagePartitionsEnsure(t.db, at('2037-03-02T00:00:00Z'), 10);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const NUMBER = '79161234567';
  const byDestination = messageFilter({ destination: NUMBER });

  it("finds an account's messages of a number, sent and received, through destinations written once", async () => {
    const { id: accountId } = await insertAccount(t.db);
    const { id: other } = await insertAccount(t.db);
    const sentAt = at('2037-03-03T10:00:00Z');
    const sent = uuid7(sentAt.getTime());
    await insertBatch(t.db, accountId, sentAt, [stepMessage(sent, sentAt, { id: sent, step: 1 })]);
    const received = await messageInsertInbound(t.db, inboundOf(accountId, 'd1', at('2037-03-10T11:00:00Z')));
    // The same number of another account, and another number of this one: not found.
    await messageInsertInbound(t.db, inboundOf(other, 'd1', at('2037-03-03T12:00:00Z')));
    await insertMessage(t.db, { accountId, destination: '79160000000', createdAt: at('2037-03-03T13:00:00Z') });

    const list = await messageList(t.db, accountId, byDestination, 'asc', 10, 0);
    expect(list.map((m) => m.id)).toEqual([sent, received!.id]);
    expect(await messageListCount(t.db, accountId, byDestination)).toBe(2);
    // A status change writes the message again, not its destination.
    await messagesSet(t.db, { accountId }, { status: 'delivered', due_at: null });
    const [rows] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM message_destinations WHERE account_id = $1',
      [accountId],
    );
    expect(rows!.n).toBe(3);
    expect((await messageList(t.db, accountId, byDestination, 'desc', 10, 0)).map((m) => m.id)).toEqual([
      received!.id,
      sent,
    ]);
  });

  it('reads the destinations through their index and the messages by key, no partition whole', async () => {
    const { id: accountId } = await insertAccount(t.db);
    const plan = await planOf(t.db, (explaining) => messageList(explaining, accountId, byDestination, 'desc', 10, 0), {
      partitions: true,
    });
    expect(indexesOf(plan).some((index) => index.startsWith('message_destinations_p'))).toBe(true);
    for (const name of [...(await inherited(t.db)), ...(await inherited(t.db, 'message_destinations'))])
      expect(scansOf(plan, name)).not.toContain('Seq Scan');
  });
});

describe.each(ENGINES)("a message list's newest page (%s)", (engine) => {
  it('is looked for in the last week first, planned over its partitions alone, and is the whole list’s page', () =>
    withTestDb(engine, async (t) => {
      const { id: accountId } = await insertAccount(t.db);
      for (let day = 0; day <= 28; day += 7) await messagePartitionsEnsure(t.db, at('2057-03-01T12:00:00Z', day));
      const now = at('2057-03-29T12:00:00Z');
      // Three of the first week, three of the last (within LIST_RECENT_MS of now), and another account's.
      const old = [];
      for (const hour of [1, 2, 3])
        old.push(await insertMessage(t.db, { accountId, createdAt: at(`2057-03-02T0${hour}:00:00Z`) }));
      const recent = [];
      for (const hour of [1, 2, 3])
        recent.push(await insertMessage(t.db, { accountId, createdAt: at(`2057-03-28T0${hour}:00:00Z`) }));
      const { id: other } = await insertAccount(t.db);
      await insertMessage(t.db, { accountId: other, createdAt: at('2057-03-29T01:00:00Z') });
      const all = messageFilter({});
      const newestFirst = [...recent].reverse().concat([...old].reverse());
      const page = async (limit: number, offset: number, filter = all) =>
        (await messageList(t.db, accountId, filter, 'desc', limit, offset, now)).map((m) => m.id);

      // Whole in the last week, or reaching past it (the whole list read then): the same pages as without the time.
      expect(await page(2, 0)).toEqual(newestFirst.slice(0, 2));
      expect(await page(2, 1)).toEqual(newestFirst.slice(1, 3));
      expect(await page(2, 2)).toEqual(newestFirst.slice(2, 4));
      expect(await page(10, 0)).toEqual(newestFirst);
      // An upper bound before the last week: the whole list's.
      const before = messageFilter({ toId: uuidBound(at('2057-03-10T00:00:00Z').getTime(), 'high') });
      expect(await page(2, 0, before)).toEqual([old[2], old[1]]);

      // A page found in the last week is planned over the partitions of that week alone: one statement, answered with
      // as many rows as the page asks for (found whole).
      let statements = 0;
      const found = (params: readonly unknown[]): unknown[] => {
        statements++;
        return Array.from({ length: params[params.length - 2] as number }, () => ({}));
      };
      const look = await planOf(t.db, (q) => messageList(q, accountId, all, 'desc', 2, 0, now), {
        partitions: true,
        answer: found,
      });
      expect(statements).toBe(1);
      const recentFrom = now.getTime() - LIST_RECENT_MS;
      const partitions = await messagePartitions(t.db);
      const lastWeek = partitions
        .filter((p) => p.isDefault || p.toMs! > recentFrom)
        .map((p) => p.name)
        .sort();
      expect(partitions.length).toBeGreaterThan(lastWeek.length + 2);
      expect(partitionsIn(look).sort()).toEqual(lastWeek);
      // Without the time (or past the last week), every week.
      const whole = await planOf(t.db, (q) => messageList(q, accountId, all, 'desc', 2, 0), { partitions: true });
      expect(partitionsIn(whole).sort()).toEqual(partitions.map((p) => p.name).sort());
    }));
});
