import type { Clock, ClockTimer } from '../util/clock.js';

/** A part of a long submit_sm: its reference (8-bit or 16-bit UDH, or SAR TLVs), the part count and its number. */
export interface PartKey {
  readonly reference: number;
  readonly total: number;
  readonly sequence: number;
}

/** Limits of the parts a bind keeps in memory while it waits for the rest of their messages. */
export interface PartLimits {
  /** Parts of unfinished messages a bind holds at once; a part beyond is refused (ESME_RMSGQFUL-like throttling). */
  readonly maxParts: number;
  /** How long the first part of a message waits for the others before all its parts are refused. */
  readonly timeoutMs: number;
}

/**
 * A bind's unfinished long messages: parts are kept (in memory, per bind: a part is answered only with its whole
 * message, so nothing is lost when a bind drops: the client had no answer and sends again) until the last one
 * comes, then joined in part order. `T` is what the caller keeps per part (its PDU, to answer it).
 */
export class LongMessages<T> {
  private readonly waiting = new Map<string, { parts: Map<number, { text: string; item: T }>; timer: ClockTimer }>();
  private held = 0;

  constructor(
    private readonly clock: Clock,
    private readonly limits: PartLimits,
    private readonly expired: (items: T[]) => void,
  ) {}

  /** Parts held now. */
  get size(): number {
    return this.held;
  }

  /**
   * Takes a part. Returns the whole message's text and every part's item when this was its last part, `full` when
   * the bind holds its limit of parts, `duplicate` for a part number already held, else `waiting`.
   */
  add(
    key: string,
    part: PartKey,
    text: string,
    item: T,
  ): { text: string; items: T[] } | 'waiting' | 'full' | 'duplicate' {
    let entry = this.waiting.get(key);
    if (entry?.parts.has(part.sequence)) return 'duplicate';
    if (this.held >= this.limits.maxParts) return 'full';
    if (!entry) {
      const timer = this.clock.setTimer(this.limits.timeoutMs, () => {
        const gone = this.waiting.get(key);
        if (!gone) return;
        this.waiting.delete(key);
        this.held -= gone.parts.size;
        this.expired([...gone.parts.values()].map((p) => p.item));
      });
      entry = { parts: new Map(), timer };
      this.waiting.set(key, entry);
    }
    entry.parts.set(part.sequence, { text, item });
    this.held++;
    if (entry.parts.size < part.total) return 'waiting';
    entry.timer.cancel();
    this.waiting.delete(key);
    this.held -= entry.parts.size;
    const ordered = [...entry.parts.entries()].sort(([a], [b]) => a - b).map(([, p]) => p);
    return { text: ordered.map((p) => p.text).join(''), items: ordered.map((p) => p.item) };
  }

  /** Drops every waiting part (the bind closed): their timers die with it. */
  clear(): void {
    for (const entry of this.waiting.values()) entry.timer.cancel();
    this.waiting.clear();
    this.held = 0;
  }
}
