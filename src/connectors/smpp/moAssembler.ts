import type { Clock, ClockTimer } from '../../util/clock.js';

/**
 * How long the parts of a long inbound SMS wait for the rest. Handsets send the parts of a message together; an
 * SMSC may hold one back for minutes when the network is busy. After this the parts that came are handed on as they
 * are (in order, the gaps marked), never dropped.
 */
export const MO_PARTS_WAIT_MS = 10 * 60_000;
/** Incomplete inbound messages held at most; beyond it the oldest are handed on as they are. */
export const MO_PENDING_MAX = 10_000;

/** One part of a long inbound SMS: its reference (8-bit or 16-bit UDH, or SAR), the part count and its number. */
export interface MoPart {
  readonly reference: number;
  readonly total: number;
  readonly sequence: number;
}

interface Pending {
  readonly parts: Map<number, string>;
  readonly total: number;
  readonly timer: ClockTimer;
}

/** What the gap of a part that never came reads as in the text handed on. */
export const MISSING_PART = '[…]';

/**
 * Reassembles long inbound SMS from their parts, by sender, recipient, reference and part count, before they are
 * stored: each part is acknowledged to the SMSC when it arrives (an SMSC may send no part before the last is
 * answered), and the whole message is handed on once its last part came, or when {@link MO_PARTS_WAIT_MS} ran out.
 * The parts are held in memory: a restart loses those of messages not complete yet.
 */
export class MoAssembler {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly clock: Clock,
    private readonly emit: (key: { from: string; to: string }, text: string, parts: number) => void,
  ) {}

  get waiting(): number {
    return this.pending.size;
  }

  add(from: string, to: string, part: MoPart, text: string): void {
    if (part.total <= 1) {
      this.emit({ from, to }, text, 1);
      return;
    }
    const key = JSON.stringify([from, to, part.reference, part.total]);
    let entry = this.pending.get(key);
    if (!entry) {
      entry = {
        parts: new Map(),
        total: part.total,
        timer: this.clock.setTimer(MO_PARTS_WAIT_MS, () => this.flush(key)),
      };
      this.pending.set(key, entry);
      if (this.pending.size > MO_PENDING_MAX) this.flush(this.pending.keys().next().value!);
    }
    // A part sent again (the SMSC did not see our answer) replaces itself.
    entry.parts.set(part.sequence, text);
    if (entry.parts.size === entry.total) this.flush(key);
  }

  /** Hands on every incomplete message as it is (the connector is stopping). */
  flushAll(): void {
    for (const key of [...this.pending.keys()]) this.flush(key);
  }

  private flush(key: string): void {
    const entry = this.pending.get(key);
    if (!entry) return;
    this.pending.delete(key);
    entry.timer.cancel();
    const [from, to] = JSON.parse(key) as [string, string];
    const texts = Array.from({ length: entry.total }, (_, i) => entry.parts.get(i + 1) ?? MISSING_PART);
    this.emit({ from, to }, texts.join(''), entry.parts.size);
  }
}

/** The concatenation of an inbound part: a UDH with IEI 0x00 (8-bit reference) or 0x08 (16-bit), or SAR TLVs. */
export function moPartOf(udh: readonly Buffer[] | undefined, sar: Record<string, unknown>): MoPart | undefined {
  for (const h of udh ?? []) {
    if (h[0] === 0x00 && h.length >= 5) return { reference: h[2]!, total: h[3]!, sequence: h[4]! };
    if (h[0] === 0x08 && h.length >= 6) return { reference: (h[2]! << 8) | h[3]!, total: h[4]!, sequence: h[5]! };
  }
  if (typeof sar.sar_msg_ref_num === 'number' && typeof sar.sar_segment_seqnum === 'number') {
    return {
      reference: sar.sar_msg_ref_num,
      total: Number(sar.sar_total_segments ?? 1),
      sequence: sar.sar_segment_seqnum,
    };
  }
  return undefined;
}
