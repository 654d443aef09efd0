import { gsmCharCost, gsmEncode, gsmSeptetCount, smsSplit } from '../../sms/index.js';
import type { Tlv } from './hotPdus.js';
import { receiptError } from './carrierIds.js';
import { pad2 } from '../../util/time.js';

/** data_coding values: 0 is the SMSC default alphabet, GSM 03.38 (not IA5, which is 1); 3 Latin-1; 8 UCS-2. */
export const DATA_CODING = { gsm7: 0x00, latin1: 0x03, ucs2: 0x08 } as const;
export const ESM_UDHI = 0x40;
/** The message type bits of esm_class in a deliver_sm or data_sm (0x04 receipt, 0x20 intermediate, 0 MO). */
export const ESM_MESSAGE_TYPE = 0x3c;
/** Optional parameters of long messages (SMPP 3.4, 5.3.2.22-24 and 5.3.2.32). */
const TLV_TAG = { sarMsgRefNum: 0x020c, sarTotalSegments: 0x020e, sarSegmentSeqnum: 0x020f, messagePayload: 0x0424 };

export type LongMessages = 'udh8' | 'udh16' | 'sar' | 'payload';

/** How a connector writes texts (DESIGN 17): its SMSC's default alphabet, UCS-2 or not, and long messages. */
export interface TextEncoding {
  /** 0: GSM 03.38 text goes as the SMSC default alphabet; 3: text in Latin-1 goes as Latin-1. */
  readonly dataCoding: 0 | 3;
  /** Text outside the default alphabet goes as UCS-2; false refuses it. */
  readonly ucs2: boolean;
  readonly longMessages: LongMessages;
}

export const STANDARD_ENCODING: TextEncoding = { dataCoding: 0, ucs2: true, longMessages: 'udh8' };

export interface SubmitPart {
  readonly esm_class: number;
  readonly data_coding: number;
  readonly short_message: Buffer;
  readonly tlvs: readonly Tlv[];
}

/** What a part holds: septets (GSM, an escape counting 2), octets (Latin-1) or UTF-16 code units (UCS-2). */
const CAPACITY = {
  gsm7: { single: 160, udh8: 153, udh16: 152, sar: 160 },
  latin1: { single: 140, udh8: 134, udh16: 133, sar: 140 },
  ucs2: { single: 70, udh8: 67, udh16: 66, sar: 70 },
} as const;

type Alphabet = keyof typeof CAPACITY;

/**
 * The submit_sm bodies of one SMS: one PDU for a text that fits, else one per part, each with a concatenation UDH
 * (`udh8`: IEI 0x00, an 8-bit reference; `udh16`: IEI 0x08, a 16-bit one) or SAR TLVs, or one PDU carrying the
 * whole text in message_payload (`payload`: the SMSC splits it). GSM text is sent unpacked, one septet per byte.
 * Undefined when the text needs UCS-2 and the connector may not send it.
 */
export function smsPdus(
  text: string,
  reference: number,
  encoding: TextEncoding = STANDARD_ENCODING,
): SubmitPart[] | undefined {
  const alphabet = alphabetOf(text, encoding);
  if (!alphabet) return undefined;
  const encode = (part: string): Buffer =>
    alphabet === 'gsm7' ? gsmEncode(part) : alphabet === 'latin1' ? Buffer.from(part, 'latin1') : ucs2(part);
  const dataCoding = DATA_CODING[alphabet];
  const mode = encoding.longMessages;
  if (mode === 'payload' && costOf(text, alphabet) > CAPACITY[alphabet].single) {
    return [
      {
        esm_class: 0,
        data_coding: dataCoding,
        short_message: Buffer.alloc(0),
        tlvs: [{ tag: TLV_TAG.messagePayload, value: encode(text) }],
      },
    ];
  }
  const parts = splitText(text, alphabet, mode === 'payload' ? 'udh8' : mode);
  if (parts.length === 1)
    return [{ esm_class: 0, data_coding: dataCoding, short_message: encode(parts[0]!), tlvs: [] }];
  return parts.map((part, i) => {
    if (mode === 'sar') {
      return {
        esm_class: 0,
        data_coding: dataCoding,
        short_message: encode(part),
        tlvs: [
          { tag: TLV_TAG.sarMsgRefNum, value: Buffer.from([(reference >> 8) & 0xff, reference & 0xff]) },
          { tag: TLV_TAG.sarTotalSegments, value: Buffer.from([parts.length]) },
          { tag: TLV_TAG.sarSegmentSeqnum, value: Buffer.from([i + 1]) },
        ],
      };
    }
    const header =
      mode === 'udh16'
        ? [0x06, 0x08, 0x04, (reference >> 8) & 0xff, reference & 0xff, parts.length, i + 1]
        : [0x05, 0x00, 0x03, reference & 0xff, parts.length, i + 1];
    return {
      esm_class: ESM_UDHI,
      data_coding: dataCoding,
      short_message: Buffer.concat([Buffer.from(header), encode(part)]),
      tlvs: [],
    };
  });
}

function alphabetOf(text: string, encoding: TextEncoding): Alphabet | undefined {
  if (encoding.dataCoding === 0 && gsmSeptetCount(text) >= 0) return 'gsm7';
  // Latin-1 is every code unit up to U+00FF.
  if (encoding.dataCoding === 3 && ![...text].some((c) => c.charCodeAt(0) > 0xff)) return 'latin1';
  return encoding.ucs2 ? 'ucs2' : undefined;
}

function costOf(text: string, alphabet: Alphabet): number {
  return alphabet === 'gsm7' ? gsmSeptetCount(text) : text.length;
}

/**
 * The parts of a text: the standard split (the one Herald counts and prices) for GSM and UCS-2 with 8-bit UDH,
 * else by the capacity of the connector's form. An escape pair or a surrogate pair is never split.
 */
function splitText(text: string, alphabet: Alphabet, mode: Exclude<LongMessages, 'payload'>): string[] {
  if (alphabet !== 'latin1' && mode === 'udh8') return smsSplit(text).parts;
  const capacity = CAPACITY[alphabet];
  if (costOf(text, alphabet) <= capacity.single) return [text];
  const parts: string[] = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const isPair = alphabet === 'ucs2' && unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length;
    const cost = isPair ? 2 : alphabet === 'gsm7' ? gsmCharCost(unit) : 1;
    if (used + cost > capacity[mode]) {
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

/** UCS-2 big-endian, as SMPP carries it. */
export function ucs2(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/**
 * Source address type: alphanumeric sender ids, international numbers, or short codes; a connector's `sourceTon` and
 * `sourceNpi` replace what the sender's form suggests.
 */
export function sourceAddress(
  senderName: string,
  fixed: { sourceTon?: number | undefined; sourceNpi?: number | undefined } = {},
): {
  source_addr: string;
  source_addr_ton: number;
  source_addr_npi: number;
} {
  const guessed = guessSourceAddress(senderName);
  return {
    source_addr: senderName,
    source_addr_ton: fixed.sourceTon ?? guessed.source_addr_ton,
    source_addr_npi: fixed.sourceNpi ?? guessed.source_addr_npi,
  };
}

function guessSourceAddress(senderName: string): {
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
  const hours = Math.floor(rest / 3600);
  const minutes = Math.floor((rest % 3600) / 60);
  return `0000${pad2(days)}${pad2(hours)}${pad2(minutes)}${pad2(rest % 60)}000R`;
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
  const errorCode = receiptError(/(?:^|\s)err:(\S+)/i.exec(text)?.[1]) ?? nackError(text);
  return { carrierId, stat, errorCode };
}

/**
 * The SMPP command_status of Kannel's `NACK/0x<hex>/<name>` (the text Kannel, and opensmppbox after it, gives a
 * submission its upstream SMSC refused), which such a receipt carries in its `text:` with `err:000`.
 */
function nackError(text: string): number | null {
  const status = /\bNACK\/0x([0-9a-f]{1,8})\b/i.exec(text)?.[1];
  if (status === undefined) return null;
  const value = Number.parseInt(status, 16);
  return value === 0 ? null : value;
}
