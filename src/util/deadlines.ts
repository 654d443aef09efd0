import { type Clock, type ClockTimer, nowMs } from './clock.js';

/**
 * Keys that expire one span after they were added, all on one clock timer. A span shared by every key means the
 * oldest key is always the first to expire (a Map keeps the order keys were added in), so the one timer is armed for
 * the first key's deadline and a firing walks only the keys that are due. The requests of an SMPP connection each
 * had a timer of their own (a Timeout, its closures and a cancel object per PDU, set and cleared within
 * milliseconds): a connection's PDUs now share one.
 */
export class Deadlines<K> {
  /** Each key's deadline (ms since the epoch on the clock), oldest first. */
  private readonly due = new Map<K, number>();
  private timer: ClockTimer | undefined;
  private firing = false;

  constructor(
    private readonly clock: Clock,
    private readonly spanMs: number,
    /** Called once for each key whose span passed; the key is gone by then. */
    private readonly expire: (key: K) => void,
  ) {}

  /** Expires `key` a span from now (a key added again starts its span again, and goes last). */
  add(key: K): void {
    this.due.delete(key);
    this.due.set(key, nowMs(this.clock) + this.spanMs);
    if (!this.timer && !this.firing) this.arm(this.spanMs);
  }

  /** The key will not expire (answered); its deadline's timer stays armed for the keys after it, or fires idle. */
  delete(key: K): boolean {
    return this.due.delete(key);
  }

  /** No key expires: the timer is cancelled (the connection closed). */
  clear(): void {
    this.due.clear();
    this.timer?.cancel();
    this.timer = undefined;
  }

  get size(): number {
    return this.due.size;
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimer(ms, () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.firing = true;
    const now = nowMs(this.clock);
    try {
      for (const [key, at] of this.due) {
        if (at > now) break;
        this.due.delete(key);
        this.expire(key);
      }
    } finally {
      this.firing = false;
      // The first key left (one added by an expiry comes after it) has the earliest deadline.
      const first = this.due.values().next();
      if (!first.done && !this.timer) this.arm(Math.max(0, first.value - now));
    }
  }
}
