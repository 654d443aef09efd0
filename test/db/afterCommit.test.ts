import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterCommit } from '../../src/db/afterCommit.js';
import { countRefusals } from '../../src/guard/index.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';

describe.each(ENGINES)('what waits for a COMMIT on %s', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
    await t.db.exec(`
      CREATE TABLE commit_checks (id int PRIMARY KEY, fail boolean NOT NULL DEFAULT false);
      CREATE FUNCTION commit_checks_fail() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.fail THEN RAISE EXCEPTION 'refused at COMMIT' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$;
      CREATE CONSTRAINT TRIGGER commit_checks_fail AFTER INSERT ON commit_checks DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION commit_checks_fail();`);
  });
  afterAll(async () => {
    await t.drop();
  });

  it('runs after COMMIT, not before, and at once outside a transaction', async () => {
    const ran: string[] = [];
    await t.db.transaction(async (tx) => {
      await tx.query('INSERT INTO commit_checks (id) VALUES (1)');
      afterCommit(tx, () => ran.push('first'));
      afterCommit(tx, () => ran.push('second'));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['first', 'second']);
    afterCommit(t.db, () => ran.push('outside'));
    expect(ran).toEqual(['first', 'second', 'outside']);
  });

  it('never runs for a transaction rolled back, or one whose COMMIT failed', async () => {
    const ran: string[] = [];
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query('INSERT INTO commit_checks (id) VALUES (2)');
        afterCommit(tx, () => ran.push('rolled back'));
        throw new Error('the caller gave up');
      }),
    ).rejects.toThrow('the caller gave up');
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query('INSERT INTO commit_checks (id, fail) VALUES (3, true)');
        afterCommit(tx, () => ran.push('commit failed'));
      }),
    ).rejects.toThrow();
    // The next transaction's own waits only.
    await t.db.transaction(async (tx) => afterCommit(tx, () => ran.push('next')));
    expect(ran).toEqual(['next']);
    const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM commit_checks WHERE id IN (2, 3)');
    expect(rows[0]!.n).toBe(0);
  });

  it('leaves a committed transaction committed when what waited for it throws, and runs the rest', async () => {
    const ran: string[] = [];
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const answer = await t.db.transaction(async (tx) => {
      await tx.query('INSERT INTO commit_checks (id) VALUES (5)');
      afterCommit(tx, () => {
        throw new Error('a hook that failed');
      });
      afterCommit(tx, () => ran.push('after it'));
      return 'committed';
    });
    expect(answer).toBe('committed');
    expect(ran).toEqual(['after it']);
    expect((await warned).message).toBe('a hook that failed');
    const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM commit_checks WHERE id = 5');
    expect(rows[0]!.n).toBe(1);
  });

  it('counts refusals in herald_refusals_total only once their statistics are committed', async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: 'herald_refusals_total',
      help: 'the test',
      labelNames: ['code', 'outcome'],
      registers: [registry],
    });
    const count = async (): Promise<number> =>
      (await counter.get()).values.find((v) => v.labels.code === '4035' && v.labels.outcome === 'refused')?.value ?? 0;
    const [account] = await t.db.query<{ id: number }>(
      `INSERT INTO accounts (name, currency, callback_secret, created_at, updated_at)
       VALUES ('refusals', 'RUB', 'secret', now(), now()) RETURNING id`,
    );
    const refusals = [{ channelType: 'SMS', code: 4035 }];
    const now = new Date('2026-03-10T09:00:00Z');
    await expect(
      t.db.transaction(async (tx) => {
        await countRefusals(tx, counter, account!.id, refusals, now);
        await tx.query('INSERT INTO commit_checks (id, fail) VALUES (4, true)');
      }),
    ).rejects.toThrow();
    expect(await count()).toBe(0);
    await t.db.transaction((tx) => countRefusals(tx, counter, account!.id, refusals, now));
    expect(await count()).toBe(1);
    const stored = await t.db.query<{ count: number }>(
      'SELECT count::int AS count FROM refusal_counts WHERE account_id = $1',
      [account!.id],
    );
    expect(stored).toEqual([{ count: 1 }]);
  });
});
