import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { messageInsertBatch } from '../../src/messages/messageSql.js';
import { messageRegionsCte } from '../../src/messages/regionSql.js';
import { uuid7 } from '../../src/util/uuid7.js';
import { insertAccount, newMessage } from '../factories/rows.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { waitFor } from '../helpers/waitFor.js';

/** The ids of `names` as the insert of messages finds or adds them. */
async function regionIds(db: Queryable, names: (string | null)[]): Promise<Record<string, number>> {
  const [row] = await db.query<{ ids: Record<string, number> | null }>(
    `WITH ${messageRegionsCte('$1::text[]')} SELECT ids FROM regions`,
    [names],
  );
  return row!.ids ?? {};
}

describe.each(ENGINES)('region names stored once (%s)', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('adds a name the first time, finds it after, and leaves NULL out', async () => {
    const first = await regionIds(t.db, ['Alpha', 'Beta', null, 'Alpha']);
    expect(Object.keys(first).sort()).toEqual(['Alpha', 'Beta']);
    const again = await regionIds(t.db, ['Alpha', 'Gamma']);
    expect(again.Alpha).toBe(first.Alpha);
    expect(again.Gamma).not.toBe(first.Alpha);
    const [count] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM message_regions');
    expect(count!.n).toBe(3);
  });

  it("stores a batch of many regions in its ids' order, each message with its region's id", async () => {
    const { id: accountId } = await insertAccount(t.db);
    const now = new Date('2026-12-05T18:30:00Z');
    // Names out of alphabetical order, repeating: a batch sorted by its names would not be in the ids' order.
    const names = ['Томская область', 'Алтайский край', null, 'Москва', 'Алтайский край', 'Якутия', 'Бурятия'];
    const messages = Array.from({ length: 70 }, (_, i) =>
      newMessage(uuid7(now.getTime()), now, { destination: `7916${1000000 + i}`, region: names[i % 7]! }),
    );
    await messageInsertBatch(t.db, {
      accountId,
      trafficCenterId: null,
      sendingMethod: 'API',
      currency: 'RUB',
      now,
      leaseUntil: now,
      messages,
    });
    const stored = await t.db.query<{ id: string; name: string | null; part: string }>(
      `SELECT m.id, g.name, m.tableoid::text AS part
       FROM messages m LEFT JOIN message_regions g ON g.id = m.region_id
       WHERE m.account_id = $1 ORDER BY m.ctid`,
      [accountId],
    );
    // One partition: its rows' places (ctid) say the order they were stored in.
    expect(new Set(stored.map((r) => r.part)).size).toBe(1);
    // The heap in the ids' order (the primary key's too), which is the batch's.
    expect(stored.map((r) => r.id)).toEqual(messages.map((m) => m.id));
    expect(stored.map((r) => r.name)).toEqual(messages.map((m) => m.subscriber.region));
  });
});

describe.runIf(ENGINES.includes('postgres'))('a region name two batches add at once (postgres)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb('postgres');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('gives the second the id the first added, once the first commits', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let added: Record<string, number> | undefined;
    const first = t.db.transaction(async (tx) => {
      added = await regionIds(tx, ['Racing']);
      await held;
    });
    await waitFor(() => added);
    // The second's snapshot does not see the uncommitted name: its insert waits on the first's key.
    const second = regionIds(t.db, ['Racing']);
    await waitFor(async () => {
      const [row] = await t.db.query<{ waiting: number }>(
        "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' " +
          "AND query LIKE '%INSERT INTO message_regions%'",
      );
      return row!.waiting > 0;
    });
    release();
    await first;
    expect(await second).toEqual(added);
    const [count] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM message_regions WHERE name = 'Racing'",
    );
    expect(count!.n).toBe(1);
  });
});
