import { type Clock, type ClockTimer, systemClock } from '../util/clock.js';

/**
 * Timers a simulator owns, on a clock (a test's, which can jump over a simulated delay), so that stopping it
 * cancels everything it still meant to do.
 */
export class Timers {
  private readonly pending = new Set<ClockTimer>();

  constructor(readonly clock: Clock = systemClock) {}

  later(ms: number, fn: () => void): void {
    const timer = this.clock.setTimer(ms, () => {
      this.pending.delete(timer);
      fn();
    });
    this.pending.add(timer);
  }

  clear(): void {
    for (const timer of this.pending) timer.cancel();
    this.pending.clear();
  }
}
