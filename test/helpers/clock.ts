import type { Clock } from '../../src/util/clock.js';

/** A clock that stands still until the test moves it. */
export class TestClock implements Clock {
  private ms: number;

  constructor(start: Date | string = '2026-03-10T09:00:00Z') {
    this.ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  set(time: Date | string): void {
    this.ms = new Date(time).getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
