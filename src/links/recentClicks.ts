import { failureKeyOf } from '../http/clientAddress.js';
import type { Clock } from '../util/clock.js';

/**
 * A click on a link is recorded once per client and minute. A client is its address as the failure limit counts it
 * ({@link failureKeyOf}): an IPv4 address, or an IPv6 /64, which one subscriber holds whole and could otherwise click
 * from 2^64 addresses, each recorded.
 */
export const CLICK_WINDOW_MS = 60_000;
/**
 * (link, client) pairs remembered at most: some 15 MB. Past it the oldest are forgotten before their minute is up,
 * and such a pair's next click is recorded again: only a flood from more clients than this a minute gets that far.
 */
export const RECENT_CLICKS_MAX = 50_000;

/**
 * The clicks of the last minute, by link and client (an IPv4 address or an IPv6 /64), in this process's memory. A
 * click seen within the minute is answered from here, with the first click's location: no database work, no click
 * counted, no `click` event. Concurrent first clicks share one recording. Unknown codes are remembered the same way.
 */
export class RecentClicks {
  private readonly seen = new Map<string, { until: number; location: Promise<string | undefined> }>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = CLICK_WINDOW_MS,
    private readonly max = RECENT_CLICKS_MAX,
  ) {}

  /**
   * The location a click on `code` from `address` goes to: that of a click of the last minute, else what `record`
   * (which records the click) answers; undefined for an unknown link.
   */
  follow(code: string, address: string, record: () => Promise<string | undefined>): Promise<string | undefined> {
    const key = `${code} ${failureKeyOf(address)}`;
    const now = this.clock.nowMs();
    const recent = this.seen.get(key);
    if (recent && recent.until > now) return recent.location;
    this.seen.delete(key);
    this.forgetOld(now);
    const entry = { until: now + this.windowMs, location: record() };
    this.seen.set(key, entry);
    // A click that could not be recorded is not remembered: the next one tries again.
    entry.location.catch(() => {
      if (this.seen.get(key) === entry) this.seen.delete(key);
    });
    return entry.location;
  }

  /** Entries are kept in the order they were made, which is the order they expire in. */
  private forgetOld(now: number): void {
    for (const [key, entry] of this.seen) {
      if (entry.until > now && this.seen.size < this.max) return;
      this.seen.delete(key);
    }
  }
}
