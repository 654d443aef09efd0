import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { messageRegionsCte } from '../../src/messages/regionSql.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { waitFor } from '../helpers/waitFor.js';

/** The ids of `names` as the insert of messages finds or adds them. */
async function regionIds(db: Queryable, names: (string | null)[]): Promise<Record<string, number>> {
  const rows = await db.query<{ id: number; name: string }>(
    `WITH source AS (SELECT unnest($1::text[]) AS region),${messageRegionsCte('source')}
     SELECT id, name FROM regions`,
    [names],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.id]));
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
