import type { Logger } from 'pino';
import { type Clock, type ClockTimer } from '../util/clock.js';
import { LoopFailures, type LoopStep } from './loop.js';

/**
 * A periodic job of a capability (expiring lifetimes, purging idempotency records, rolling up statistics ...):
 * its data lives in the database with its due times, so a restart forgets nothing and several workers share the
 * work through SKIP LOCKED; the job only says how often to look.
 */
export interface Job {
  readonly name: string;
  /** Milliseconds of the clock between the end of one run and the start of the next. */
  readonly everyMs: number;
  /**
   * May resolve to {@link Quiet}: the job found nothing to do and knows when it next will, so that its runs are
   * skipped until then while nothing happens in the process (see {@link Jobs}).
   */
  run(): Promise<unknown>;
}

/** What a run that found nothing to do may answer: its next work is not due before `until` (ms of the clock). */
export interface Quiet {
  readonly quietUntil: number;
}

const isQuiet = (value: unknown): value is Quiet =>
  typeof value === 'object' && value !== null && typeof (value as Quiet).quietUntil === 'number';

/**
 * The longest a quiet job's runs are skipped: the safety net for work it was not told about (a process that died,
 * a write of an api process in a split deployment that notified no one).
 */
export const QUIET_MAX_MS = 10_000;

const MIN_EVERY_MS = 100;
const MAX_EVERY_MS = 86_400_000;

/**
 * Runs each job on its own interval of the clock, one run of a job at a time. `run(name)` runs a job now, after the
 * run under way if any, and resolves when it has finished: tests drive jobs that way instead of waiting for them.
 *
 * An idle worker should not ask the database every second whether a lifetime ran out: a job whose run answers
 * {@link Quiet} is not run again before its `quietUntil` while the process's `activity` count (its writes and
 * wake-ups) stays the same, for {@link QUIET_MAX_MS} at most.
 */
export class Jobs {
  private readonly jobs = new Map<
    string,
    {
      job: Job;
      timer: ClockTimer | undefined;
      running: Promise<void>;
      /** The scheduled runs: a database outage logged once, not once a run. */
      runs: LoopStep;
      quiet?: { until: number; activity: number; since: number } | undefined;
    }
  >();
  private started = false;

  constructor(
    private readonly deps: { clock: Clock; log: Logger; activity?: () => number },
    jobs: readonly Job[],
  ) {
    for (const job of jobs) {
      if (!Number.isInteger(job.everyMs) || job.everyMs < MIN_EVERY_MS || job.everyMs > MAX_EVERY_MS) {
        throw new Error(
          `job ${job.name}: its interval must be whole milliseconds from ${MIN_EVERY_MS} to ${MAX_EVERY_MS}, ` +
            `not ${job.everyMs}`,
        );
      }
      if (this.jobs.has(job.name)) throw new Error(`job ${job.name}: named twice`);
      this.jobs.set(job.name, {
        job,
        timer: undefined,
        running: Promise.resolve(),
        runs: new LoopFailures(deps.log, deps.clock, { job: job.name }).step('job failed'),
      });
    }
  }

  get names(): string[] {
    return [...this.jobs.keys()];
  }

  start(): void {
    this.started = true;
    for (const name of this.jobs.keys()) this.schedule(name);
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const entry of this.jobs.values()) entry.timer?.cancel();
    await Promise.all([...this.jobs.values()].map((entry) => entry.running));
  }

  /** Runs one job now (after its run under way), or every job in turn; a failure is thrown to the caller. */
  async run(name?: string): Promise<void> {
    for (const jobName of name === undefined ? this.names : [name]) {
      const entry = this.jobs.get(jobName);
      if (!entry) throw new Error(`no job named ${jobName}`);
      await this.runEntry(entry);
    }
  }

  /** Runs a job after its run under way; resolves to what the run answered. */
  private runEntry(entry: { job: Job; running: Promise<void> }): Promise<unknown> {
    const run = entry.running.then(() => entry.job.run());
    entry.running = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private schedule(name: string): void {
    const entry = this.jobs.get(name)!;
    entry.timer = this.deps.clock.setTimer(entry.job.everyMs, () => {
      entry.timer = undefined;
      const now = this.deps.clock.nowMs();
      const quiet = entry.quiet;
      const activity = this.deps.activity?.();
      if (quiet && activity === quiet.activity && now < quiet.until && now - quiet.since < QUIET_MAX_MS) {
        if (this.started) this.schedule(name);
        return;
      }
      entry.quiet = undefined;
      this.runEntry(entry)
        .then((result) => {
          entry.runs.succeeded();
          if (isQuiet(result) && activity !== undefined)
            entry.quiet = { until: result.quietUntil, activity, since: now };
        })
        .catch((error: unknown) => entry.runs.failed(error))
        .finally(() => {
          if (this.started) this.schedule(name);
        });
    });
  }
}
