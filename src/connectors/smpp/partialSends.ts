import type { SubmitPart } from './smppMessage.js';

/** A multi-part message some of whose parts an SMSC accepted while others were refused or went unanswered. */
export interface PartialSend {
  readonly connectorId: string;
  readonly text: string;
  /** The parts as first encoded: the same bytes, so the same concatenation reference, go again. */
  readonly parts: readonly SubmitPart[];
  /** The carrier id of each accepted part, undefined for the others. */
  readonly carrierIds: readonly (string | undefined)[];
  readonly expiresAt: number;
}

/** Partial sends remembered at most; beyond it the oldest are forgotten (about 50 MB of parts). */
export const PARTIAL_SENDS_REMEMBERED = 50_000;

/**
 * The multi-part messages of this process with parts an SMSC already accepted, by message id, until the message's
 * lifetime ends: when the message comes back from the queue, only the parts not accepted are sent, with the same
 * reference, through the same connector (its SMSC holds the other parts), so that no part reaches the handset twice.
 */
export class PartialSends {
  private readonly sends = new Map<string, PartialSend>();

  save(messageId: string, send: PartialSend, now: number): void {
    this.sends.delete(messageId);
    this.sends.set(messageId, send);
    for (const [id, entry] of this.sends) {
      if (entry.expiresAt > now && this.sends.size <= PARTIAL_SENDS_REMEMBERED) break;
      this.sends.delete(id);
    }
  }

  /** The partial send of a message with this text, if any and not expired. */
  find(messageId: string, text: string, now: number): PartialSend | undefined {
    const send = this.sends.get(messageId);
    if (!send) return undefined;
    if (send.expiresAt <= now || send.text !== text) {
      this.sends.delete(messageId);
      return undefined;
    }
    return send;
  }

  forget(messageId: string): void {
    this.sends.delete(messageId);
  }
}

/** One store per process, shared by its SMPP connectors: a message's retry may come to any of them. */
export const partialSends = new PartialSends();
