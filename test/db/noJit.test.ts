import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';

/**
 * No statement of Herald's is compiled by PostgreSQL's JIT, however large its estimated cost: a claim over a big
 * backlog spent 223 ms compiling against 6 running (docs/scaling.md, "No JIT"). The threshold is put at 0 in the
 * transaction, so that any statement would be compiled where JIT is on.
 */
describe.each(ENGINES)('JIT (%s)', (engine) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(engine);
  });
  afterAll(async () => testDb?.drop());

  const jitted = async (tx: Queryable): Promise<boolean> => {
    await tx.query('SET LOCAL jit_above_cost = 0');
    const plan = await tx.query<{ 'QUERY PLAN': string }>(
      'EXPLAIN (ANALYZE) SELECT sum(i) FROM generate_series(1, 1000) i',
    );
    return plan.some((row) => row['QUERY PLAN'].startsWith('JIT:'));
  };

  it("compiles nothing on any of the pool's connections", async () => {
    // Transactions at once: each on a connection of its own, as many as the pool opens.
    const seen = await Promise.all(
      Array.from({ length: 4 }, () =>
        testDb.db.transaction(async (tx) => {
          const [pid] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          return { pid: pid!.pid, jitted: await jitted(tx) };
        }),
      ),
    );
    expect(seen.map((s) => s.jitted)).toEqual([false, false, false, false]);
    if (engine === 'postgres') expect(new Set(seen.map((s) => s.pid)).size).toBeGreaterThan(1);
  });

  it.runIf(engine === 'postgres')('would compile it with JIT as the server sets it', async (ctx) => {
    await testDb.db.transaction(async (tx) => {
      await tx.query('SET LOCAL jit = on');
      // True only where the server has a JIT provider (and jit is on).
      const [available] = await tx.query<{ yes: boolean }>('SELECT pg_jit_available() AS yes');
      if (!available!.yes) ctx.skip();
      expect(await jitted(tx)).toBe(true);
    });
  });
});
