import type { Logger } from 'pino';
import {
  answeredByDatabase,
  commitUnanswered,
  isDatabaseUnavailable,
  isTransactionConflict,
} from '../db/connectionErrors.js';
import { type Clock, type ClockTimer } from '../util/clock.js';

/**
 * How soon an idle loop looks again when work is due that its last round left (a channel or a lane had no room,
 * another worker held it): what frees it wakes the loop sooner.
 */
export const DUE_LEFT_POLL_MS = 250;

/**
 * How soon a loop looks again after a statement failed (the database away): soon enough to go on within a second
 * of its return, seldom enough that an outage logs a line a second, not thousands.
 */
export const ERROR_POLL_MS = 1000;

type Waiter = (notified: boolean) => void;

/**
 * Wakes a waiting loop early: the one wake primitive of Herald's loops. A notify that finds no one waiting is kept
 * for the next wait, which then returns at once: the loop was busy and may have looked before the work was
 * committed. However many notifies come meanwhile (a burst of 10,000 sends), the loop goes round once more, not once
 * per notify.
 */
export class Wake {
  private waiters: Waiter[] = [];
  private pending = false;

  constructor(private readonly clock: Clock) {}

  notify(): void {
    if (this.waiters.length === 0) {
      this.pending = true;
      return;
    }
    for (const wake of this.waiters.splice(0)) wake(true);
  }

  /** Whether a loop waits now: a wake worth giving only to a waiting loop is not kept for later. */
  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /** Whether a notify is kept for the next wait: the loop need not work out how long it would sleep. */
  get notified(): boolean {
    return this.pending;
  }

  /** Forgets a notify kept for the next wait: the round about to start sees the work it announced. */
  clear(): void {
    this.pending = false;
  }

  /**
   * Resolves to true on the next notify of this wake or of `also` (at once if one came since the last wait), to
   * false once `ms` of the clock have passed; without `ms`, on a notify only.
   */
  wait(ms?: number, also?: Wake): Promise<boolean> {
    if (this.take() || also?.take()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: ClockTimer | undefined;
      const done: Waiter = (notified) => {
        timer?.cancel();
        this.remove(done);
        also?.remove(done);
        resolve(notified);
      };
      if (ms !== undefined) timer = this.clock.setTimer(ms, () => done(false));
      this.waiters.push(done);
      also?.waiters.push(done);
    });
  }

  private take(): boolean {
    const pending = this.pending;
    this.pending = false;
    return pending;
  }

  private remove(waiter: Waiter): void {
    const i = this.waiters.indexOf(waiter);
    if (i >= 0) this.waiters.splice(i, 1);
  }
}

/**
 * The skeleton of a worker loop (the submitter, the callback sender), after river's startstop.BaseStartStop: start()
 * and stop() may each be called any number of times, `running` tells which came last, and stop() resolves once the
 * round under way has ended (a loop starts again only after that). The loop sleeps on its {@link wake}, with the
 * timers of the clock it was given (tests jump over a sleep instead of waiting it out); each loop says how long.
 */
export abstract class Loop {
  /** Woken by stop(), and by what each loop waits for besides its time (see each). */
  protected readonly wake: Wake;
  private on = false;
  private loop: Promise<void> = Promise.resolve();

  protected constructor(clock: Clock) {
    this.wake = new Wake(clock);
  }

  get running(): boolean {
    return this.on;
  }

  start(): void {
    if (this.on) return;
    this.on = true;
    this.loop = this.run();
  }

  /** Stops the loop: wakes it, and resolves once its round under way has ended. */
  async stop(): Promise<void> {
    this.on = false;
    this.wake.notify();
    await this.loop;
  }

  /** The rounds, while {@link running}. */
  protected abstract run(): Promise<void>;
}

/** A step of a loop (a claim, a look, a flush): what it tells its loop's {@link LoopFailures}. */
export interface LoopStep {
  /** The step failed (the database away: logged once for the loop's outage); `fields` join its line. */
  failed(error: unknown, fields?: Record<string, unknown>): void;
  /** The step succeeded: the loop's outage ends if this step had failed in it. */
  succeeded(): void;
}

/**
 * The failures of a loop that goes round again after one (a claim, a flush, a job, a client's request), each
 * {@link step} logging its own line: the database away is logged once, as a warning, when the loop first meets it,
 * and its return as information (`database back`, with how long the loop failed and how often) when a step that
 * failed in the outage next succeeds, or at the next error the database answered; a transaction another rolled back
 * (a deadlock) as a warning each time; any other error, a COMMIT that went unanswered among them, as an error each
 * time. A loop that looks every second logged an error and its stack every second for as long as PostgreSQL was
 * away. Only a step that failed ends the outage: while a standby answers reads and refuses writes (a failover), a
 * read's success would log the database back, and the next write's failure an outage again, at every round.
 */
export class LoopFailures {
  private outage: { sinceMs: number; failures: number; first: string; steps: Set<string> } | undefined;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    /** Fields of every line (the job's name). */
    private readonly fields: Record<string, unknown> = {},
  ) {}

  /** The step whose failure logs `message`, as docs/operations.md names it ("job failed"). */
  step(message: string): LoopStep {
    return {
      failed: (error, fields = {}) => this.failed(error, message, fields),
      succeeded: () => {
        if (this.outage?.steps.has(message)) this.end();
      },
    };
  }

  private failed(error: unknown, message: string, fields: Record<string, unknown>): void {
    // A COMMIT that went unanswered may have written what it carried: an error each time, never hidden in an outage.
    const unavailable = isDatabaseUnavailable(error) && !commitUnanswered(error);
    if (unavailable && this.outage) {
      this.outage.failures++;
      this.outage.steps.add(message);
      return;
    }
    const line = Object.assign({ err: error }, this.fields, fields);
    if (unavailable) {
      this.outage = { sinceMs: this.clock.nowMs(), failures: 1, first: message, steps: new Set([message]) };
      this.log.warn(line, `${message} (the database is unavailable: logged once until it is back)`);
      return;
    }
    // An error of PostgreSQL's own: it answered, so it is back.
    if (answeredByDatabase(error) && this.outage) this.end();
    if (isTransactionConflict(error)) this.log.warn(line, message);
    else this.log.error(line, message);
  }

  /** The end of the outage, logged. */
  private end(): void {
    const { sinceMs, failures, first } = this.outage!;
    this.outage = undefined;
    const line = Object.assign({ failed: first, failures, failingMs: this.clock.nowMs() - sinceMs }, this.fields);
    this.log.info(line, 'database back');
  }
}
