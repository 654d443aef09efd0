import { type Clock, systemClock } from '../util/clock.js';

/** Wakes a polling loop early: the API notifies after it stores messages, so that the dispatcher needn't wait. */
export class Wakeup {
  private waiters: (() => void)[] = [];

  constructor(private readonly clock: Clock = systemClock) {}

  notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves on the next notify() or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(ms, done);
      const waiters = this.waiters;
      function done(): void {
        timer.cancel();
        const i = waiters.indexOf(done);
        if (i >= 0) waiters.splice(i, 1);
        resolve();
      }
      this.waiters.push(done);
    });
  }
}
