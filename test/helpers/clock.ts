import type { Clock, ClockTimer } from '../../src/util/clock.js';

interface Pending {
  due: number;
  readonly fn: () => void;
  real: NodeJS.Timeout | undefined;
}

/**
 * A test clock. It stands still until the test moves it, or, once `flowing`, runs at real speed from where it
 * stands, still movable by the test. Its timers fire after their span in real time, as a system clock's would, and
 * at once when the test moves the clock past them: a test jumps over a long wait instead of sleeping through it.
 */
export class TestClock implements Clock {
  private ms: number;
  /** What it was moved forward by in all (setting it back elapses nothing). */
  private movedForward = 0;
  private flowingSince: number | undefined;
  private readonly pending = new Set<Pending>();

  constructor(start: Date | string = '2026-03-10T09:00:00Z', options: { flowing?: boolean } = {}) {
    this.ms = new Date(start).getTime();
    if (options.flowing) this.flowingSince = performance.now();
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  nowMs(): number {
    return Math.floor(this.ms + this.flowed());
  }

  elapsedMs(): number {
    return this.movedForward + this.flowed();
  }

  /** Real time that passed since it began to flow (none while it stands still). */
  private flowed(): number {
    return this.flowingSince === undefined ? 0 : performance.now() - this.flowingSince;
  }

  setTimer(ms: number, fn: () => void): ClockTimer {
    const timer: Pending = { due: this.now().getTime() + Math.max(0, ms), fn, real: undefined };
    this.pending.add(timer);
    timer.real = setTimeout(() => this.fire(timer), Math.max(0, ms));
    return {
      cancel: () => {
        clearTimeout(timer.real);
        this.pending.delete(timer);
      },
    };
  }

  /** Sets the clock: forward, as `advance`; back, as a change of the wall clock that leaves timers' spans alone. */
  set(time: Date | string): void {
    this.advance(new Date(time).getTime() - this.now().getTime());
  }

  /**
   * Moves the clock forward, firing at once the timers now due, in the order they fall due; or back, keeping what
   * is left of each timer's span (a timer counts elapsed time, and none elapses when the clock is set back).
   */
  advance(ms: number): void {
    const before = this.now().getTime();
    this.ms += ms;
    const moved = this.now().getTime() - before;
    if (moved < 0) {
      for (const timer of this.pending) timer.due += moved;
      return;
    }
    this.movedForward += moved;
    this.catchUp();
  }

  /** Timers not yet fired, for tests that check that nothing is left waiting. */
  get timers(): number {
    return this.pending.size;
  }

  private fire(timer: Pending): void {
    if (!this.pending.delete(timer)) return;
    clearTimeout(timer.real);
    timer.fn();
  }

  private catchUp(): void {
    const now = this.now().getTime();
    // Timers a fired one sets are due later than now unless their span is 0: at most one pass per such chain.
    for (let guard = 0; guard < 10_000; guard++) {
      let first: Pending | undefined;
      for (const timer of this.pending) if (timer.due <= now && (!first || timer.due < first.due)) first = timer;
      if (!first) break;
      this.fire(first);
    }
    // The rest fall due in real time as much later as they are due after the new now.
    for (const timer of this.pending) {
      clearTimeout(timer.real);
      timer.real = setTimeout(() => this.fire(timer), Math.max(0, timer.due - now));
    }
  }
}
