import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPreparedStatementLost, isTransactionConflict } from '../../src/db/connectionErrors.js';
import { type Db, genericPlan, type Queryable } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/postgresDb.js';
import { MOST_NAMED, statementName } from '../../src/db/statementNames.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';

/**
 * Repeated long statements are named and prepared once a connection (HERALD_DB_PREPARED_STATEMENTS, docs/scaling.md
 * "Prepared statements"); a pool whose connection lost one (a transaction pooler before PgBouncer 1.21 gives each
 * transaction another server connection) names no more, and what failed of it is a retryable failure, never a wrong
 * answer. The PostgreSQL driver's pools only: PGlite runs in the process, with no connections to prepare on.
 */
describe.runIf(ENGINES.includes('postgres'))('prepared statements (the PostgreSQL driver)', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('postgres');
  });
  afterAll(async () => testDb?.drop());

  /** A pool of one connection on the test's schema, named statements on or off, its errors kept. */
  const pool = (preparedStatements: boolean, errors: Error[] = []): Db =>
    openPostgres({
      url: testDb.url!,
      schema: testDb.schema!,
      poolSize: 1,
      preparedStatements,
      onError: (error) => errors.push(error),
    });

  /** Runs `test` with such a pool, closed after it. */
  const withPool = async (on: boolean, errors: Error[], test: (db: Db) => Promise<void>): Promise<void> => {
    const db = pool(on, errors);
    try {
      await test(db);
    } finally {
      await db.close();
    }
  };

  /** A statement long enough to be named; `n` makes texts that differ. */
  const long = (n = 0): string => `SELECT $1::int + ${n} AS sum /* ${'long enough to be named, '.repeat(10)} */`;

  /** The prepared statements of the connection `db` runs on (its only one). */
  const prepared = async (db: Queryable): Promise<string[]> =>
    (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).map((r) => r.name);

  it('names a long statement from its third call, one name a text; short and one-off ones go unnamed', async () => {
    await withPool(true, [], async (db) => {
      for (let call = 1; call <= 2; call++) expect(await db.query(long(), [call])).toEqual([{ sum: call }]);
      expect(await prepared(db)).toEqual([]);
      for (let call = 3; call <= 5; call++) expect(await db.query(long(), [call])).toEqual([{ sum: call }]);
      const names = await prepared(db);
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^herald_[0-9a-f]{24}$/);
      // Short statements and statements without parameters are never named.
      for (let call = 0; call < 5; call++) {
        await db.query('SELECT $1::int AS n', [call]);
        await db.query(long(1).replace('$1::int', '1'));
      }
      // Nor a text met once (one that carries its values in it).
      for (let n = 2; n < 7; n++) await db.query(long(n), [n]);
      expect(await prepared(db)).toEqual(names);
      // In a transaction as well: the same name, on the same connection.
      await db.transaction(async (tx) => {
        expect(await tx.query(long(), [6])).toEqual([{ sum: 6 }]);
        expect(await prepared(tx)).toEqual(names);
      });
    });
  });

  it(`names at most ${MOST_NAMED} texts a pool, whatever comes`, async () => {
    await withPool(true, [], async (db) => {
      for (let n = 0; n < MOST_NAMED + 20; n++) {
        for (let call = 0; call < 3; call++) expect(await db.query(long(n), [call])).toEqual([{ sum: call + n }]);
      }
      expect(await prepared(db)).toHaveLength(MOST_NAMED);
    });
  });

  it('names none with HERALD_DB_PREPARED_STATEMENTS=false', async () => {
    await withPool(false, [], async (db) => {
      for (let call = 0; call < 5; call++) expect(await db.query(long(), [call])).toEqual([{ sum: call }]);
      expect(await prepared(db)).toEqual([]);
    });
  });

  it("goes on unnamed once a connection lost a statement, as behind PgBouncer's transaction pooling", async () => {
    const errors: Error[] = [];
    await withPool(true, errors, async (db) => {
      for (let call = 0; call < 3; call++) await db.query(long(), [call]);
      expect(await prepared(db)).toHaveLength(1);
      // What a transaction pooler does between two transactions: the next server connection lacks the statement.
      await db.query('DEALLOCATE ALL');
      // Alone, the statement runs again unnamed: the right answer, and the pool says why once.
      expect(await db.query(long(), [7])).toEqual([{ sum: 7 }]);
      expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/HERALD_DB_PREPARED_STATEMENTS=false/)]);
      expect(await prepared(db)).toEqual([]);
      // And nothing is named after that.
      for (let call = 0; call < 5; call++) await db.query(long(1), [call]);
      expect(await prepared(db)).toEqual([]);
      expect(errors).toHaveLength(1);
    });
  });

  it('goes on unnamed when a connection already has the name, as another client left it behind PgBouncer', async () => {
    const errors: Error[] = [];
    await withPool(true, errors, async (db) => {
      for (let call = 0; call < 2; call++) await db.query(long(), [call]);
      // The name the third call gives, prepared on the connection by someone else (a server connection that another
      // client of the pooler prepared it on).
      const name = statementName(long());
      await db.exec(`PREPARE ${name} (int) AS SELECT $1 + 100 AS sum`);
      expect(await db.query(long(), [2])).toEqual([{ sum: 2 }]);
      expect(errors).toHaveLength(1);
      expect(isTransactionConflict(Object.assign(new Error('x'), { code: '42P05' }))).toBe(true);
    });
  });

  it('fails a transaction whose statement was lost as a retryable failure, and the next one succeeds', async () => {
    const errors: Error[] = [];
    await withPool(true, errors, async (db) => {
      await db.exec('CREATE TEMPORARY TABLE kept (n int)');
      for (let call = 0; call < 3; call++) await db.query(long(), [call]);
      await db.query('DEALLOCATE ALL');
      const failed = await db
        .transaction(async (tx) => {
          await tx.query('INSERT INTO kept VALUES (1)');
          return tx.query(long(), [1]);
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      // Answered 503 5031 to a client, retried by a loop's next round; nothing of it written.
      expect(isTransactionConflict(failed)).toBe(true);
      expect(await db.query('SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 0 }]);
      const again = await db.transaction(async (tx) => {
        await tx.query('INSERT INTO kept VALUES (1)');
        return tx.query(long(), [1]);
      });
      expect(again).toEqual([{ sum: 1 }]);
      expect(await db.query('SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 1 }]);
      expect(errors).toHaveLength(1);
    });
  });

  it('knows a changed result by the server function that reports it, in whatever language the server speaks', () => {
    // lc_messages translates the message (a Russian server's); `routine` is never translated.
    const changed = { code: '0A000', routine: 'RevalidateCachedQuery', message: 'кешированный план не должен...' };
    expect(isPreparedStatementLost(changed)).toBe(true);
    expect(isPreparedStatementLost({ code: '0A000', routine: 'ExecInitNode', message: 'not supported' })).toBe(false);
  });

  it('does not give back a connection whose named statement a value failed to reach', async () => {
    const errors: Error[] = [];
    await withPool(true, errors, async (db) => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await db.transaction(async (tx) => {
        for (let call = 0; call < 2; call++) await tx.query(long(), [call]);
        // The third call names it; its value cannot be sent (the driver closes the statement on the server), and the
        // caller goes on with its transaction.
        await expect(tx.query(long(), [circular])).rejects.toThrow(/circular/i);
        expect(await tx.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      });
      // Not the same connection with a name it lost: a new one, where the name is prepared again.
      expect(await db.query(long(), [3])).toEqual([{ sum: 3 }]);
      expect(errors).toEqual([]);
      expect(await prepared(db)).toHaveLength(1);
    });
  });

  /** A marked statement that says the plan mode it ran under; `$1` divides, so that 0 makes it fail. */
  const marked = genericPlan(
    `SELECT current_setting('plan_cache_mode') AS mode, 1 / $1::int AS n /* ${'long enough to name '.repeat(12)} */`,
  );
  const mode = async (db: Queryable): Promise<string> =>
    (await db.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`))[0]!.mode;
  /** The generic and custom plans PostgreSQL made of the statement `sql` on the connection of `db`. */
  const plansOf = async (db: Queryable, sql: string) =>
    (
      await db.query<{ generic: number; custom: number }>(
        'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1',
        [statementName(sql)],
      )
    )[0];

  it('plans a marked statement once named, for that statement alone: alone, in a transaction, failing', async () => {
    await withPool(true, [], async (db) => {
      // Unnamed, it is planned for its values like any other.
      for (let call = 0; call < 2; call++) expect(await db.query(marked, [1])).toEqual([{ mode: 'auto', n: 1 }]);
      // Named, generic plans are forced for it, in a transaction of its own, and only there.
      for (let call = 0; call < 3; call++) {
        expect(await db.query(marked, [1])).toEqual([{ mode: 'force_generic_plan', n: 1 }]);
        expect(await mode(db)).toBe('auto');
      }
      expect(await plansOf(db, marked)).toEqual({ generic: 3, custom: 0 });
      // In a caller's transaction: for the statement, and not for what follows it there.
      await db.transaction(async (tx) => {
        expect(await tx.query(marked, [1])).toEqual([{ mode: 'force_generic_plan', n: 1 }]);
        expect(await mode(tx)).toBe('auto');
      });
      // A marked statement that fails fails as it is, and leaves the connection as it was.
      await expect(db.query(marked, [0])).rejects.toMatchObject({ code: '22012' });
      await expect(db.transaction((tx) => tx.query(marked, [0]))).rejects.toMatchObject({ code: '22012' });
      expect(await mode(db)).toBe('auto');
      // One whose value the driver cannot send fails there, and the transaction goes on: with the plans it had.
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await db.transaction(async (tx) => {
        await expect(tx.query(marked, [circular])).rejects.toThrow(/circular/i);
        expect(await mode(tx)).toBe('auto');
      });
      // An unmarked statement named as well keeps PostgreSQL's own choice (a custom plan for its first calls).
      for (let call = 0; call < 3; call++) await db.query(long(), [call]);
      expect(await plansOf(db, long())).toEqual({ generic: 0, custom: 1 });
    });
  });

  it('runs a marked statement again unnamed once its connection lost it', async () => {
    const errors: Error[] = [];
    await withPool(true, errors, async (db) => {
      for (let call = 0; call < 3; call++) await db.query(marked, [1]);
      await db.query('DEALLOCATE ALL');
      expect(await db.query(marked, [1])).toEqual([{ mode: 'auto', n: 1 }]);
      expect(errors).toHaveLength(1);
      expect(await prepared(db)).toEqual([]);
    });
  });

  it('goes on unnamed once the schema changed what a named statement returns', async () => {
    const errors: Error[] = [];
    await withPool(true, errors, async (db) => {
      // A table of the schema (the failed call's connection is not the one that runs it again).
      await db.exec('CREATE TABLE shape (a int)');
      await db.exec('INSERT INTO shape VALUES (1)');
      const read = `SELECT * FROM shape WHERE a = $1 /* ${'long enough to be named '.repeat(10)} */`;
      for (let call = 0; call < 3; call++) expect(await db.query(read, [1])).toEqual([{ a: 1 }]);
      // A newer Herald's migration, during a rolling upgrade: the prepared statement's result is not what it was.
      await db.exec('ALTER TABLE shape ADD COLUMN b int');
      expect(await db.query(read, [1])).toEqual([{ a: 1, b: null }]);
      expect(errors).toHaveLength(1);
    });
  });
});
