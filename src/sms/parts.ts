import { gsmCharCost, gsmSeptetCount } from './gsm7.js';

export type SmsEncoding = 'gsm7' | 'ucs2';

/**
 * Single-part and per-part (after the 6-byte concatenation header) capacities: septets for GSM, code units for UCS-2.
 */
export const SMS_CAPACITY = {
  gsm7: { single: 160, multi: 153 },
  ucs2: { single: 70, multi: 67 },
} as const;

/** Concatenation references one byte of part numbers, so a message has at most 255 parts. */
export const SMS_MAX_PARTS = 255;

export interface SmsSplit {
  readonly encoding: SmsEncoding;
  /** The text of each part; their concatenation is the original text. */
  readonly parts: string[];
}

/** The encoding a text needs: GSM 03.38 when every character is in it, else UCS-2. */
export function smsEncoding(text: string): SmsEncoding {
  return gsmSeptetCount(text) >= 0 ? 'gsm7' : 'ucs2';
}

/**
 * Splits a text into SMS parts the way it goes to the SMSC: at most 160 septets (GSM) or 70 code units (UCS-2) in
 * one part, else 153 or 67 per part. An extension character's two septets and a surrogate pair's two code units are
 * never split across parts.
 */
export function smsSplit(text: string): SmsSplit {
  const septets = gsmSeptetCount(text);
  if (septets >= 0) {
    if (septets <= SMS_CAPACITY.gsm7.single) return { encoding: 'gsm7', parts: [text] };
    return { encoding: 'gsm7', parts: splitBy(text, SMS_CAPACITY.gsm7.multi, (i) => gsmCharCost(text.charCodeAt(i))) };
  }
  if (text.length <= SMS_CAPACITY.ucs2.single) return { encoding: 'ucs2', parts: [text] };
  return { encoding: 'ucs2', parts: splitBy(text, SMS_CAPACITY.ucs2.multi, () => 1) };
}

/** Number of SMS parts of a text; the same figure as `smsSplit(text).parts.length`, without building the parts. */
export function smsPartCount(text: string): number {
  const septets = gsmSeptetCount(text);
  if (septets >= 0) {
    if (septets <= SMS_CAPACITY.gsm7.single) return 1;
    if (!text.includes('\u20ac') && !/[\f^{}\\[~\]|]/.test(text)) return Math.ceil(septets / SMS_CAPACITY.gsm7.multi);
  } else if (text.length <= SMS_CAPACITY.ucs2.single) {
    return 1;
  } else if (!/[\ud800-\udfff]/.test(text)) {
    return Math.ceil(text.length / SMS_CAPACITY.ucs2.multi);
  }
  // Two-unit characters may be pushed to the next part, so count by splitting.
  return smsSplit(text).parts.length;
}

function splitBy(text: string, capacity: number, costAt: (index: number) => number): string[] {
  const parts: string[] = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const isPair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length;
    const cost = isPair ? 2 : costAt(i);
    if (used + cost > capacity) {
      parts.push(text.slice(start, i));
      start = i;
      used = 0;
    }
    used += cost;
    if (isPair) i++;
  }
  parts.push(text.slice(start));
  return parts;
}
