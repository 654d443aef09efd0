import { type Clock, systemClock } from '../util/clock.js';

/**
 * Wakes a waiting loop early: the API notifies after it stores messages, and so does the process's listener when
 * another process announces work (db/wake.ts). A notify that finds no one waiting is kept for the next wait, which
 * then returns at once: the loop was busy and may have looked before the work was committed. However many
 * notifies come meanwhile (a burst of 10,000 sends), the loop goes round once more, not once per notify.
 */
export class Wakeup {
  private waiters: (() => void)[] = [];
  private pending = false;
  /** Notifies so far: part of a process's activity (shared/jobs.ts). */
  notifies = 0;

  constructor(private readonly clock: Clock = systemClock) {}

  notify(): void {
    this.notifies++;
    if (this.waiters.length === 0) {
      this.pending = true;
      return;
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves on the next notify() (at once if one came since the last wait) or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => this.onWake(ms, () => resolve()));
  }

  /**
   * Calls `fn` once: with true on the next notify(), with false after `ms`. The returned function cancels the wait.
   */
  onWake(ms: number, fn: (notified: boolean) => void): () => void {
    if (this.pending) {
      this.pending = false;
      fn(true);
      return () => undefined;
    }
    const waiters = this.waiters;
    const timer = this.clock.setTimer(ms, () => done(false));
    const notified = (): void => done(true);
    function cancel(): void {
      timer.cancel();
      const i = waiters.indexOf(notified);
      if (i >= 0) waiters.splice(i, 1);
    }
    function done(byNotify: boolean): void {
      cancel();
      fn(byNotify);
    }
    waiters.push(notified);
    return cancel;
  }
}

/**
 * The Wakeup of a process without a submitter (role api): a notify also wakes the workers of other processes, by a
 * notification sent after the commit that stored the work (the caller notifies after its commit). One statement
 * at a time: the notifies that come while one is under way make one more after it, not one each, so a burst of
 * sends costs the database a few notifications.
 */
export class AnnouncingWakeup extends Wakeup {
  private sending = false;
  private again = false;

  constructor(
    clock: Clock,
    private readonly announce: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {
    super(clock);
  }

  override notify(): void {
    super.notify();
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    do {
      this.again = false;
      await this.announce().catch(this.onError);
    } while (this.again);
    this.sending = false;
  }
}
