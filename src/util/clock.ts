/**
 * The source of time for everything that depends on it: "now", and timers that fire after a span of this clock's
 * time. Herald runs on the system clock; tests drive a test clock (test/helpers/clock.ts) that stands still or
 * flows, and jump over a span (a 65-second SMSC outage, a 30-second enquire_link) instead of waiting it out.
 */
export interface Clock {
  now(): Date;
  /** `now()` in milliseconds since the epoch, without making a Date: the hot path reads it several times a message. */
  nowMs(): number;
  /**
   * Milliseconds elapsed since some fixed moment of this clock, for spans that a change of the wall clock must not
   * move (a request's timeout): what its timers count.
   */
  elapsedMs(): number;
  /** Calls `fn` once `ms` of this clock's time have passed. */
  setTimer(ms: number, fn: () => void): ClockTimer;
}

export interface ClockTimer {
  cancel(): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
  elapsedMs: () => performance.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

/** Resolves once `ms` of the clock's time have passed. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve));
}
