import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitOutcomeUnknown, isDatabaseUnavailable } from '../../src/db/connectionErrors.js';
import { Loop, LoopFailures, Wake } from '../../src/shared/loop.js';
import { TestSignal } from '../../src/shared/testSignal.js';
import type { Clock } from '../../src/util/clock.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { logSink } from '../helpers/logs.js';

/** Lets every promise chain that needs no I/O run to its end. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A loop that counts its rounds and sleeps `sleepMs` of the clock (or until woken) after each. */
class CountingLoop extends Loop {
  rounds = 0;
  readonly testSignals = { round: new TestSignal<number>() };

  constructor(
    clock: Clock,
    private readonly sleepMs: number,
  ) {
    super(clock);
  }

  poke(): void {
    this.wake.notify();
  }

  protected async run(): Promise<void> {
    while (this.running) {
      this.rounds++;
      this.testSignals.round.signal(this.rounds);
      await this.wake.wait(this.sleepMs);
    }
  }
}

describe('the wake of a loop', () => {
  it('keeps a notify that finds no one waiting for the next wait, once however many came', async () => {
    const clock = new TestClock();
    const wake = new Wake(clock);
    for (let i = 0; i < 10_000; i++) wake.notify();
    expect(wake.notified).toBe(true);
    expect(await wake.wait(1000)).toBe(true);
    const second = wake.wait(1000);
    clock.advance(1000);
    expect(await second).toBe(false);
    expect(clock.timers).toBe(0);
  });

  it('wakes a waiting loop at once, and keeps nothing of that notify', async () => {
    const clock = new TestClock();
    const wake = new Wake(clock);
    const waited = wake.wait(60_000);
    expect(wake.waiting).toBe(true);
    wake.notify();
    expect(await waited).toBe(true);
    expect(wake.waiting).toBe(false);
    expect(wake.notified).toBe(false);
    expect(clock.timers).toBe(0);
  });

  it('waits without a timer when given no time, and forgets a kept notify when cleared', async () => {
    const clock = new TestClock();
    const wake = new Wake(clock);
    wake.notify();
    wake.clear();
    let woken: boolean | undefined;
    void wake.wait().then((value) => (woken = value));
    expect(clock.timers).toBe(0);
    clock.advance(3_600_000);
    await settled();
    expect(woken).toBeUndefined();
    wake.notify();
    await settled();
    expect(woken).toBe(true);
  });

  it('wakes a wait on two wakes at a notify of either, and leaves neither waiting', async () => {
    const clock = new TestClock();
    const own = new Wake(clock);
    const other = new Wake(clock);
    const waited = own.wait(1000, other);
    expect([own.waiting, other.waiting]).toEqual([true, true]);
    other.notify();
    expect(await waited).toBe(true);
    expect([own.waiting, other.waiting]).toEqual([false, false]);
    // A notify kept by the other one returns the next wait at once, and is spent.
    other.notify();
    expect(await own.wait(1000, other)).toBe(true);
    expect(other.notified).toBe(false);
    expect(clock.timers).toBe(0);
  });
});

describe('the skeleton of a loop', () => {
  it('starts once however often started, sleeps on the clock, and goes round when woken', async () => {
    const clock = new TestClock();
    const loop = new CountingLoop(clock, 5000);
    loop.start();
    loop.start();
    expect(loop.running).toBe(true);
    expect(loop.rounds).toBe(1);
    const second = loop.testSignals.round.next();
    clock.advance(5000);
    expect(await second).toBe(2);
    const third = loop.testSignals.round.next();
    loop.poke();
    expect(await third).toBe(3);
    expect(loop.rounds).toBe(3);
    await loop.stop();
  });

  it('stops a sleeping loop at once, any number of times, and stops one never started', async () => {
    const clock = new TestClock();
    const idle = new CountingLoop(clock, 3_600_000);
    await idle.stop();
    expect(idle.running).toBe(false);
    const loop = new CountingLoop(clock, 3_600_000);
    loop.start();
    await Promise.all([loop.stop(), loop.stop()]);
    expect(loop.running).toBe(false);
    expect(loop.rounds).toBe(1);
    expect(clock.timers).toBe(0);
  });
});

describe('a test signal', () => {
  it('gives each waiter the value of the first firing after it asked; a firing no one waits for is lost', async () => {
    const signal = new TestSignal<number>();
    signal.signal(1);
    const next = signal.next();
    signal.signal(2);
    signal.signal(3);
    expect(await next).toBe(2);
    const both = Promise.all([signal.next(), signal.next()]);
    signal.signal(4);
    expect(await both).toEqual([4, 4]);
  });
});

describe.each(ENGINES)('LoopFailures on %s', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine, { migrated: false });
  });
  afterAll(async () => {
    await t.drop();
  });

  /** A logger that keeps each line it writes. */
  function capturedLog(): { log: pino.Logger; lines: { level: number; msg: string; [k: string]: unknown }[] } {
    const lines: { level: number; msg: string }[] = [];
    return {
      log: pino(
        { level: 'info' },
        logSink((line) => lines.push(JSON.parse(line) as (typeof lines)[0])),
      ),
      lines,
    };
  }
  /** The error of a connection to a port where nothing listens: the database away. */
  async function connectionRefused(): Promise<unknown> {
    const client = new pg.Client({ host: '127.0.0.1', port: 1, connectionTimeoutMillis: 5000 });
    return client.connect().then(
      () => new Error('a server listened on port 1'),
      (error: unknown) => error,
    );
  }
  /** The database's own error for a statement: `sqlstate` raised, or a missing table. */
  const databaseError = (sqlstate?: string): Promise<unknown> =>
    t.db
      .query(
        sqlstate === undefined
          ? 'SELECT * FROM no_such_table'
          : `DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '${sqlstate}'; END $$`,
      )
      .then(
        () => new Error('the statement succeeded'),
        (error: unknown) => error,
      );
  const levels = (lines: { level: number }[]): string[] => lines.map((l) => pino.levels.labels[l.level]!);

  it('logs an outage once as a warning, and its end with how long and how often it failed', async () => {
    const clock = new TestClock();
    const { log, lines } = capturedLog();
    const failures = new LoopFailures(log, clock);
    const claims = failures.step('claiming due messages failed');
    const nextDue = failures.step('reading the next due message failed');
    const refused = await connectionRefused();
    claims.succeeded();
    // Two steps of one loop fail in turn: one outage.
    for (let i = 0; i < 3; i++) {
      claims.failed(refused);
      nextDue.failed(refused);
      clock.advance(1000);
    }
    expect(levels(lines)).toEqual(['warn']);
    expect(lines[0]!.msg).toMatch(/^claiming due messages failed \(the database is unavailable/);
    expect((lines[0]!.err as { code: string }).code).toBe('ECONNREFUSED');

    claims.succeeded();
    nextDue.succeeded();
    expect(levels(lines)).toEqual(['warn', 'info']);
    expect(lines[1]).toMatchObject({
      msg: 'database back',
      failed: 'claiming due messages failed',
      failures: 6,
      failingMs: 3000,
    });

    // The next outage is logged again.
    claims.failed(refused);
    expect(levels(lines)).toEqual(['warn', 'info', 'warn']);
  });

  it('is not ended by a step that did not fail in the outage (a standby answers reads, refuses writes)', async () => {
    const { log, lines } = capturedLog();
    const failures = new LoopFailures(log, new TestClock());
    const claims = failures.step('claiming due messages failed');
    const nextDue = failures.step('reading the next due message failed');
    const refused = await connectionRefused();
    for (let i = 0; i < 3; i++) {
      claims.failed(refused);
      nextDue.succeeded();
    }
    expect(levels(lines)).toEqual(['warn']);
    claims.succeeded();
    expect(levels(lines)).toEqual(['warn', 'info']);
    expect(lines[1]).toMatchObject({ msg: 'database back', failures: 3 });
  });

  it("ends an outage at an error the database answered, and logs that error and a conflict's each time", async () => {
    const { log, lines } = capturedLog();
    const failures = new LoopFailures(log, new TestClock(), { job: 'retention' }).step('job failed');
    failures.failed(await connectionRefused());
    const missing = await databaseError();
    failures.failed(missing, { attempt: 1 });
    failures.failed(missing, { attempt: 2 });
    expect(levels(lines)).toEqual(['warn', 'info', 'error', 'error']);
    expect(lines[1]).toMatchObject({ msg: 'database back', job: 'retention', failures: 1 });
    expect(lines[3]).toMatchObject({ msg: 'job failed', job: 'retention', attempt: 2 });

    // A deadlock is no outage: a warning each time, and no outage left open for the next one.
    const deadlock = await databaseError('40P01');
    failures.failed(deadlock);
    failures.failed(deadlock);
    failures.succeeded();
    expect(levels(lines).slice(4)).toEqual(['warn', 'warn']);
    failures.failed(await connectionRefused());
    expect(levels(lines).slice(6)).toEqual(['warn']);
    expect(lines[6]!.msg).toMatch(/the database is unavailable/);
  });

  it('keeps an outage open through an error of its own (no answer of the database)', async () => {
    const { log, lines } = capturedLog();
    const failures = new LoopFailures(log, new TestClock()).step('callback round failed');
    failures.failed(await connectionRefused());
    failures.failed(new TypeError("Cannot read properties of undefined (reading 'id')"));
    failures.failed(await connectionRefused());
    expect(levels(lines)).toEqual(['warn', 'error']);
  });

  it('logs a COMMIT that went unanswered as an error each time, within an outage or not', async () => {
    const { log, lines } = capturedLog();
    const failures = new LoopFailures(log, new TestClock()).step('delivery records not written; retrying');
    const refused = await connectionRefused();
    const lost = new CommitOutcomeUnknown(refused);
    expect(isDatabaseUnavailable(lost)).toBe(true);
    failures.failed(lost);
    failures.failed(refused);
    failures.failed(new Error('the batch failed', { cause: lost }));
    failures.failed(refused);
    expect(levels(lines)).toEqual(['error', 'warn', 'error']);
  });
});
