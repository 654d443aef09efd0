/**
 * A connector's flow control: at most `window` submissions in flight and at most `mps` started per second (a
 * token bucket holding one second of tokens). Waiters are served in order; a waiter that cannot start within
 * `maxWaitMs` gets false, so that its message goes back to the queue instead of outliving its lease here.
 */
export class Throttle {
  private inFlight = 0;
  private tokens: number;
  private refilledAt = Date.now();
  private readonly waiters: { resolve: (ok: boolean) => void; until: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private refusing = false;

  constructor(
    readonly window: number,
    readonly mps: number,
  ) {
    this.tokens = mps;
  }

  get active(): number {
    return this.inFlight;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Takes a slot and a token at once if both are free and nobody waits; the fast path of a busy connector. */
  tryAcquire(): boolean {
    return this.waiters.length === 0 && this.tryTake();
  }

  /** Waits for a free slot and a token; false when none came within `maxWaitMs`. */
  acquire(maxWaitMs: number): Promise<boolean> {
    if (this.tryAcquire()) return Promise.resolve(true);
    if (this.refusing) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiters.push({ resolve, until: Date.now() + maxWaitMs });
      this.schedule();
    });
  }

  release(): void {
    this.inFlight--;
    this.drain();
  }

  /** Fails every waiter, and every later wait until {@link reopen} (the connector is stopping). */
  rejectAll(): void {
    this.refusing = true;
    for (const waiter of this.waiters.splice(0)) waiter.resolve(false);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  reopen(): void {
    this.refusing = false;
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.mps, this.tokens + ((now - this.refilledAt) * this.mps) / 1000);
    this.refilledAt = now;
  }

  private tryTake(): boolean {
    if (this.inFlight >= this.window) return false;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    this.inFlight++;
    return true;
  }

  private drain(): void {
    const now = Date.now();
    while (this.waiters.length > 0) {
      const first = this.waiters[0]!;
      if (first.until < now) {
        this.waiters.shift();
        first.resolve(false);
        continue;
      }
      if (!this.tryTake()) break;
      this.waiters.shift();
      first.resolve(true);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.waiters.length === 0) return;
    // Wake when a token is due (a window slot frees itself through release()).
    const wait = this.tokens >= 1 ? 5 : Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.mps));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, Math.min(wait, 50));
  }
}
