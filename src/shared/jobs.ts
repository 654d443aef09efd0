import type { Logger } from 'pino';
import type { Clock, ClockTimer } from '../util/clock.js';

/**
 * A periodic job of a capability (expiring lifetimes, purging idempotency records, rolling up statistics ...):
 * its data lives in the database with its due times, so a restart forgets nothing and several workers share the
 * work through SKIP LOCKED; the job only says how often to look.
 */
export interface Job {
  readonly name: string;
  /** Milliseconds of the clock between the end of one run and the start of the next. */
  readonly everyMs: number;
  run(): Promise<unknown>;
}

const MIN_EVERY_MS = 100;
const MAX_EVERY_MS = 86_400_000;

/**
 * Runs each job on its own interval of the clock, one run of a job at a time. `run(name)` runs a job now, after the
 * run under way if any, and resolves when it has finished: tests drive jobs that way instead of waiting for them.
 */
export class Jobs {
  private readonly jobs = new Map<string, { job: Job; timer: ClockTimer | undefined; running: Promise<void> }>();
  private started = false;

  constructor(
    private readonly deps: { clock: Clock; log: Logger },
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
      this.jobs.set(job.name, { job, timer: undefined, running: Promise.resolve() });
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
      const run = entry.running.then(() => entry.job.run());
      entry.running = run.then(
        () => undefined,
        () => undefined,
      );
      await run;
    }
  }

  private schedule(name: string): void {
    const entry = this.jobs.get(name)!;
    entry.timer = this.deps.clock.setTimer(entry.job.everyMs, () => {
      entry.timer = undefined;
      this.run(name)
        .catch((error: unknown) => this.deps.log.error({ err: error, job: name }, 'job failed'))
        .finally(() => {
          if (this.started) this.schedule(name);
        });
    });
  }
}
