import type { Queryable } from '../db/db.js';
import {
  type SmsPartKey,
  type SmsPartRow,
  smsPartGet,
  smsPartInsert,
  smsPartsComplete,
  smsPartsDeleteCompleted,
  smsPartsLock,
  smsPartsWaiting,
} from './smsPartSql.js';

/** What the gap of a part that never came reads as in the text handed on. */
export const MISSING_PART = '[…]';

/** A long inbound SMS ready to be stored: whole, or as much of it as came. */
export interface SmsWhole {
  readonly text: string;
  /** The parts it came in; fewer than its count when some never came. */
  readonly parts: number;
}

/**
 * Keeps one part of a long inbound SMS, in the caller's transaction (committed before the SMSC's deliver_sm is
 * answered), and returns what is now ready to be stored, in the same transaction:
 * - the whole message, when this was its last missing part;
 * - nothing, when the same part (same number, same text) was kept already: the SMSC sent it again because it did
 *   not see our answer, before or after the message was complete;
 * - the message held so far, as it is, when a part of the same number but another text arrives while it waits: two
 *   messages share a reference, and the newer one starts anew (neither is dropped).
 * A part whose number belongs to a completed message with another text is a newer message reusing the reference
 * (8-bit references wrap after 256 messages): the completed parts are forgotten and the new one waits.
 */
export async function smsPartTake(
  tx: Queryable,
  key: SmsPartKey,
  part: { readonly partNumber: number; readonly text: string; readonly at: Date },
): Promise<SmsWhole[]> {
  await smsPartsLock(tx, key);
  const ready: SmsWhole[] = [];
  const held = await smsPartGet(tx, key, part.partNumber);
  if (held?.text === part.text) return ready;
  if (held && !held.completed_at) ready.push(await smsPartsHandOn(tx, key, part.at));
  // The parts of the message stored before make way for the new one's.
  if (held) await smsPartsDeleteCompleted(tx, key);
  await smsPartInsert(tx, key, part);
  const waiting = await smsPartsWaiting(tx, key);
  if (waiting.length >= key.total) ready.push(await smsPartsHandOn(tx, key, part.at, waiting));
  return ready;
}

/**
 * Hands on the waiting parts of a message as one text, in part order with {@link MISSING_PART} for each gap, and
 * marks them completed. The caller holds the message's lock ({@link smsPartsLock}).
 */
export async function smsPartsHandOn(
  tx: Queryable,
  key: SmsPartKey,
  at: Date,
  waiting?: readonly SmsPartRow[],
): Promise<SmsWhole> {
  const parts = waiting ?? (await smsPartsWaiting(tx, key));
  const texts = new Map(parts.map((p) => [Number(p.part_number), p.text]));
  await smsPartsComplete(tx, key, at);
  return {
    text: Array.from({ length: key.total }, (_, i) => texts.get(i + 1) ?? MISSING_PART).join(''),
    parts: parts.length,
  };
}
