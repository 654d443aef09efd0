import type { Clock, ClockTimer } from './clock.js';

interface Waiter<R> {
  /** When it times out, on the clock's elapsed time. */
  readonly at: number;
  readonly settle: (result: R) => void;
}

/**
 * Requests waiting for their answer, each timed out one span after it was sent, all on one clock timer (an SMPP
 * connection's PDUs: gosmpp's request store, with one timer instead of one a PDU). The span is the same for every
 * request, so the oldest is always the first to time out (a Map keeps the order keys were added in): the timer is
 * armed for the oldest one's deadline, and a firing walks only those that are due. Spans are measured on the clock's
 * elapsed time, which a change of the wall clock does not move. Each request is settled exactly once: by its answer,
 * its timeout, or {@link settleAll}.
 */
export class Awaiting<K, R> {
  private readonly waiting = new Map<K, Waiter<R>>();
  private timer: ClockTimer | undefined;
  private firing = false;

  constructor(
    private readonly clock: Clock,
    private readonly spanMs: number,
    /** What a request is settled with when its span passes unanswered. */
    private readonly timedOut: R,
  ) {}

  /**
   * Waits for the answer to the request `key`. A key still waiting (a sequence number that wrapped round) times the
   * earlier request out first: an answer could not tell the two apart.
   */
  add(key: K, settle: (result: R) => void): void {
    this.settle(key, this.timedOut);
    this.waiting.set(key, { at: this.clock.elapsedMs() + this.spanMs, settle });
    if (!this.timer && !this.firing) this.arm(this.spanMs);
  }

  /** Settles the request with its answer; false when none waits under `key` (answered, timed out or settled). */
  settle(key: K, result: R): boolean {
    const waiter = this.waiting.get(key);
    if (!waiter) return false;
    this.waiting.delete(key);
    waiter.settle(result);
    return true;
  }

  /** Settles every request waiting with `result` and cancels the timer (the connection closed). */
  settleAll(result: R): void {
    this.timer?.cancel();
    this.timer = undefined;
    const waiters = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiters) waiter.settle(result);
  }

  /** Requests waiting. */
  get size(): number {
    return this.waiting.size;
  }

  /** Whether its timer is armed (it stays armed for an answered request's deadline, then finds nothing due). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimer(ms, () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.firing = true;
    const now = this.clock.elapsedMs();
    try {
      for (const [key, waiter] of this.waiting) {
        if (waiter.at > now) break;
        this.waiting.delete(key);
        waiter.settle(this.timedOut);
      }
    } finally {
      this.firing = false;
      // The first request left (one added while settling comes after it) has the earliest deadline.
      const first = this.waiting.values().next();
      if (!first.done && !this.timer) this.arm(Math.max(0, first.value.at - now));
    }
  }
}
