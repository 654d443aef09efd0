import type { Clock, ClockTimer } from './clock.js';

interface Pending<R> {
  /** When it times out, on the clock's elapsed time. */
  readonly at: number;
  readonly settle: (result: R) => void;
}

/**
 * Requests waiting for their answer (an SMPP connection's PDUs, by sequence number), each timed out one span after
 * it was sent, all on one clock timer. The span is the same for every request, so the oldest is always the first to
 * time out (a Map keeps the order keys were added in): the timer is armed for the oldest one's deadline, and a firing
 * walks only those that are due. Spans are measured on the clock's elapsed time, which a change of the wall clock does
 * not move. Each request is settled exactly once: by its answer, its timeout, or {@link settleAll}.
 */
export class PendingAnswers<K, R> {
  private readonly pending = new Map<K, Pending<R>>();
  private timer: ClockTimer | undefined;
  /** The deadline the timer was armed for: its firing says that much time has passed, whatever the clock reads. */
  private armedFor = 0;
  /** A firing is walking the requests: it arms the timer itself when it ends, for the first one left. */
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
    this.pending.set(key, { at: this.clock.elapsedMs() + this.spanMs, settle });
    if (!this.timer && !this.firing) this.arm(this.spanMs);
  }

  /** Settles the request with its answer; false when none waits under `key` (answered, timed out or settled). */
  settle(key: K, result: R): boolean {
    const request = this.pending.get(key);
    if (!request) return false;
    this.pending.delete(key);
    request.settle(result);
    return true;
  }

  /**
   * Settles every request waiting with `result` and cancels the timer (the connection closed). Each is settled even
   * if one before it throws; the first error is thrown after.
   */
  settleAll(result: R): void {
    this.timer?.cancel();
    this.timer = undefined;
    const requests = [...this.pending.values()];
    this.pending.clear();
    let failure: { error: unknown } | undefined;
    for (const request of requests) {
      try {
        request.settle(result);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Requests waiting. */
  get size(): number {
    return this.pending.size;
  }

  /** Whether its timer is armed (it stays armed for an answered request's deadline, then finds nothing due). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  private arm(ms: number): void {
    this.armedFor = this.clock.elapsedMs() + ms;
    this.timer = this.clock.setTimer(ms, () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.firing = true;
    // A clock that counts less than its timers (a test clock standing still) still times out what was due.
    const now = Math.max(this.clock.elapsedMs(), this.armedFor);
    try {
      for (const [key, request] of this.pending) {
        if (request.at > now) break;
        this.pending.delete(key);
        request.settle(this.timedOut);
      }
    } finally {
      this.firing = false;
      // The first request left (one added while settling comes after it) has the earliest deadline.
      const first = this.pending.values().next();
      if (!first.done && !this.timer) this.arm(Math.max(0, first.value.at - now));
    }
  }
}
