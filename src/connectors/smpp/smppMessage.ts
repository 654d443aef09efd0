import { gsmEncode } from '../../sms/index.js';
import { smsSplit } from '../../sms/index.js';
import { receiptError } from './carrierIds.js';

/** data_coding values: 0 is the SMSC default alphabet, GSM 03.38 (not IA5, which is 1); 8 is UCS-2. */
export const DATA_CODING = { gsm7: 0x00, ucs2: 0x08 } as const;
export const ESM_UDHI = 0x40;
/** The message type bits of esm_class in a deliver_sm or data_sm (0x04 receipt, 0x20 intermediate, 0 MO). */
export const ESM_MESSAGE_TYPE = 0x3c;

export interface SubmitPart {
  readonly esm_class: number;
  readonly data_coding: number;
  readonly short_message: Buffer;
}

/**
 * The submit_sm bodies of one SMS: one PDU for a single part, else one per part, each starting with a
 * concatenation UDH (IEI 0x00: 8-bit reference, total, sequence). GSM text is sent unpacked, one septet per byte.
 */
export function smsPdus(text: string, reference: number): SubmitPart[] {
  const { encoding, parts } = smsSplit(text);
  const encode = (part: string): Buffer => (encoding === 'gsm7' ? gsmEncode(part) : ucs2(part));
  if (parts.length === 1) {
    return [{ esm_class: 0, data_coding: DATA_CODING[encoding], short_message: encode(parts[0]!) }];
  }
  return parts.map((part, i) => ({
    esm_class: ESM_UDHI,
    data_coding: DATA_CODING[encoding],
    short_message: Buffer.concat([
      Buffer.from([0x05, 0x00, 0x03, reference & 0xff, parts.length, i + 1]),
      encode(part),
    ]),
  }));
}

/** UCS-2 big-endian, as SMPP carries it. */
export function ucs2(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/** Source address type: alphanumeric sender ids, international numbers, or short codes. */
export function sourceAddress(senderName: string): {
  source_addr: string;
  source_addr_ton: number;
  source_addr_npi: number;
} {
  if (/^\d+$/.test(senderName)) {
    return senderName.length >= 10
      ? { source_addr: senderName, source_addr_ton: 1, source_addr_npi: 1 }
      : { source_addr: senderName, source_addr_ton: 3, source_addr_npi: 0 };
  }
  return { source_addr: senderName, source_addr_ton: 5, source_addr_npi: 0 };
}

/** SMPP relative time `YYMMDDhhmmss000R` for a number of seconds (validity period). */
export function relativeTime(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const rest = seconds % 86_400;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `0000${pad(days)}${pad(Math.floor(rest / 3600))}${pad(Math.floor((rest % 3600) / 60))}${pad(rest % 60)}000R`;
}

export type ReceiptStat = 'delivered' | 'undelivered' | 'unsent' | 'intermediate';

/** message_state TLV values (SMPP 3.4, 5.2.28). */
const MESSAGE_STATE: Readonly<Record<number, ReceiptStat>> = {
  1: 'intermediate', // ENROUTE
  2: 'delivered',
  3: 'undelivered', // EXPIRED
  4: 'undelivered', // DELETED
  5: 'undelivered', // UNDELIVERABLE
  6: 'intermediate', // ACCEPTED
  7: 'undelivered', // UNKNOWN
  8: 'unsent', // REJECTED
};

const STAT_TEXT: Readonly<Record<string, ReceiptStat>> = {
  DELIVRD: 'delivered',
  EXPIRED: 'undelivered',
  DELETED: 'undelivered',
  UNDELIV: 'undelivered',
  UNKNOWN: 'undelivered',
  REJECTD: 'unsent',
  ACCEPTD: 'intermediate',
  ENROUTE: 'intermediate',
};

export interface ParsedReceipt {
  readonly carrierId: string;
  readonly stat: ReceiptStat;
  readonly errorCode: number | null;
}

/**
 * Reads a delivery receipt from a deliver_sm: the message id from the receipted_message_id TLV or the receipt
 * text (`id:... stat:DELIVRD err:000`), the state from the message_state TLV or the text. Undefined when it is
 * not a receipt Herald can read.
 */
export function parseReceipt(fields: {
  receipted_message_id?: unknown;
  message_state?: unknown;
  text: string;
}): ParsedReceipt | undefined {
  const text = fields.text;
  const idFromText = /(?:^|\s)id:(\S+)/i.exec(text)?.[1];
  const carrierId =
    typeof fields.receipted_message_id === 'string' && fields.receipted_message_id !== ''
      ? fields.receipted_message_id
      : idFromText;
  if (!carrierId) return undefined;
  const statText = /(?:^|\s)stat:(\w+)/i.exec(text)?.[1]?.toUpperCase();
  const stat =
    (typeof fields.message_state === 'number' ? MESSAGE_STATE[fields.message_state] : undefined) ??
    (statText ? STAT_TEXT[statText] : undefined);
  if (!stat) return undefined;
  const errorCode = receiptError(/(?:^|\s)err:(\S+)/i.exec(text)?.[1]);
  return { carrierId, stat, errorCode };
}
