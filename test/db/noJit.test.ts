import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';

/**
 * No statement of Herald's is compiled by PostgreSQL's JIT, however large its estimated cost: a claim over a big
 * backlog spent 223 ms compiling against 6 running (docs/scaling.md, "No JIT"). The threshold is put at 0 in the
 * transaction, so that any statement would be compiled where JIT is on. The PostgreSQL driver's pools only: PGlite
 * has no connections to set, and no JIT provider.
 */
describe.runIf(ENGINES.includes('postgres'))('JIT (the PostgreSQL driver)', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('postgres');
  });
  afterAll(async () => testDb?.drop());

  const jitted = async (tx: Queryable): Promise<boolean> => {
    await tx.query('SET LOCAL jit_above_cost = 0');
    const plan = await tx.query<{ 'QUERY PLAN': string }>(
      'EXPLAIN (ANALYZE) SELECT sum(i) FROM generate_series(1, 1000) i',
    );
    return plan.some((row) => row['QUERY PLAN'].startsWith('JIT:'));
  };

  it("is off on every one of the pool's connections, which compile nothing", async () => {
    // Transactions at once: each on a connection of its own, as many as the pool opens.
    const seen = await Promise.all(
      Array.from({ length: 4 }, () =>
        testDb.db.transaction(async (tx) => {
          const [row] = await tx.query<{ pid: number; jit: string }>(
            `SELECT pg_backend_pid() AS pid, current_setting('jit') AS jit`,
          );
          return { ...row!, jitted: await jitted(tx) };
        }),
      ),
    );
    expect(seen.map((s) => [s.jit, s.jitted])).toEqual(Array.from({ length: 4 }, () => ['off', false]));
    expect(new Set(seen.map((s) => s.pid)).size).toBeGreaterThan(1);
    // And outside a transaction.
    const [outside] = await testDb.db.query<{ jit: string }>(`SELECT current_setting('jit') AS jit`);
    expect(outside!.jit).toBe('off');
    // Set by the connection, not by the server's or the role's configuration.
    const [source] = await testDb.db.query<{ source: string }>(`SELECT source FROM pg_settings WHERE name = 'jit'`);
    expect(source!.source).toBe('session');
  });

  it('would compile it with JIT on, where the server has a JIT provider', async (ctx) => {
    await testDb.db.transaction(async (tx) => {
      await tx.query('SET LOCAL jit = on');
      const [available] = await tx.query<{ yes: boolean }>('SELECT pg_jit_available() AS yes');
      if (!available!.yes) ctx.skip();
      expect(await jitted(tx)).toBe(true);
    });
  });
});
