import type { Clock } from '../../src/util/clock.js';

/**
 * A test clock: it stands still until the test moves it, or, once `flowing`, runs at real speed from where it
 * stands (for tests in which retries and leases must come due by themselves), still movable by the test.
 */
export class TestClock implements Clock {
  private ms: number;
  private flowingSince: number | undefined;

  constructor(start: Date | string = '2026-03-10T09:00:00Z', options: { flowing?: boolean } = {}) {
    this.ms = new Date(start).getTime();
    if (options.flowing) this.flowingSince = performance.now();
  }

  now(): Date {
    const flowed = this.flowingSince === undefined ? 0 : performance.now() - this.flowingSince;
    return new Date(Math.floor(this.ms + flowed));
  }

  set(time: Date | string): void {
    this.ms = new Date(time).getTime();
    if (this.flowingSince !== undefined) this.flowingSince = performance.now();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
