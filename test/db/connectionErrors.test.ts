import { describe, expect, it } from 'vitest';
import { CommitOutcomeUnknown, errorChain, isDatabaseUnavailable } from '../../src/db/connectionErrors.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';

describe.each(ENGINES)('which database errors are answered 503 5031 (%s)', (engine) => {
  it('a write refused as read-only (a standby, during a failover) is "unavailable", a wrong query is not', async () => {
    const testDb = await openTestDb(engine);
    try {
      // A read-only transaction refuses a write the way a standby does: SQLSTATE 25006.
      const readOnly = await testDb.db
        .transaction(async (tx) => {
          await tx.exec('SET TRANSACTION READ ONLY');
          await tx.query('INSERT INTO accounts (name) VALUES ($1)', ['read-only']);
        })
        .catch((error: unknown) => error);
      expect(readOnly).toMatchObject({ code: '25006' });
      expect(isDatabaseUnavailable(readOnly)).toBe(true);

      const wrong = await testDb.db.query('SELECT no_such_column FROM accounts').catch((error: unknown) => error);
      expect(wrong).toMatchObject({ code: '42703' });
      expect(isDatabaseUnavailable(wrong)).toBe(false);
    } finally {
      await testDb.drop();
    }
  });

  it('a connection-class error of COMMIT leaves the outcome unknown; another is the rollback it says', async () => {
    const testDb = await openTestDb(engine);
    try {
      // A deferred trigger raises the SQLSTATE its row names at COMMIT.
      await testDb.db.exec(`
        CREATE TABLE commit_probe (code text NOT NULL);
        CREATE FUNCTION commit_probe() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'raised by the test' USING ERRCODE = NEW.code; END $$;
        CREATE CONSTRAINT TRIGGER commit_probe AFTER INSERT ON commit_probe DEFERRABLE INITIALLY DEFERRED
          FOR EACH ROW EXECUTE FUNCTION commit_probe();`);
      const failure = (code: string, immediate = false) =>
        testDb.db
          .transaction(async (tx) => {
            await tx.query('INSERT INTO commit_probe (code) VALUES ($1)', [code]);
            if (immediate) await tx.exec('SET CONSTRAINTS ALL IMMEDIATE');
          })
          .catch((error: unknown) => error);

      const lost = await failure('57P01');
      expect(lost).toBeInstanceOf(CommitOutcomeUnknown);
      expect(lost).toMatchObject({ code: '57P01', cause: { code: '57P01' } });
      expect(isDatabaseUnavailable(lost)).toBe(true);
      // A definite answer of COMMIT (the transaction rolled back), and the same error before COMMIT, are themselves.
      const refused = await failure('23505');
      expect(refused).not.toBeInstanceOf(CommitOutcomeUnknown);
      expect(refused).toMatchObject({ code: '23505' });
      const before = await failure('57P01', true);
      expect(before).not.toBeInstanceOf(CommitOutcomeUnknown);
      expect(before).toMatchObject({ code: '57P01' });
    } finally {
      await testDb.drop();
    }
  });

  // A real connection's end: PostgreSQL only (PGlite has no connection to lose).
  it.runIf(engine === 'postgres')(
    "a connection lost before COMMIT was sent is its own error, not COMMIT's",
    async () => {
      const testDb = await openTestDb(engine);
      try {
        const error = await testDb.db
          .transaction(async (tx) => {
            // pg_sleep meets the termination at once: the FATAL is this statement's, and the connection ends.
            await tx.query('SELECT pg_terminate_backend(pg_backend_pid()), pg_sleep(1)').catch(() => undefined);
            // Fails through the connection's end, as a caller that went on after a failed statement would.
            await tx.query('SELECT 1').catch(() => undefined);
          })
          .catch((e: unknown) => e);
        expect(error).not.toBeInstanceOf(CommitOutcomeUnknown);
        expect(isDatabaseUnavailable(error)).toBe(true);
      } finally {
        await testDb.drop();
      }
    },
  );
});

describe('errorChain', () => {
  it('walks an error and its causes once each, a cycle included', () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
    const unknown = new CommitOutcomeUnknown(lost);
    const outer = new Error('the batch failed', { cause: unknown });
    expect([...errorChain(outer)]).toEqual([outer, unknown, lost]);
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect([...errorChain(a)]).toEqual([a, b]);
    expect(isDatabaseUnavailable(a)).toBe(false);
    expect(isDatabaseUnavailable(outer)).toBe(true);
  });
});
