import { herald, type HeraldError } from '../errors/catalogue.js';
import { type Channel } from '../shared/channels.js';
import { charCount, isBlank, isPlainObject, startsWithBom } from '../shared/text.js';
import { readContentObject } from './contentObject.js';
import { SMS_CAPACITY, SMS_MAX_PARTS, smsPartCount } from '../sms/index.js';
import { validateWhatsappContent, WHATSAPP_LIMITS } from './whatsappContent.js';

export const VK_TEXT_MAX = 2048;
export const VOICECODE_TEXT_MAX = 1000;
export const VIBER_TEXT_MAX = 1000;
export const VIBER_CAPTION_MAX = 30;
/** Telegram's own bound on a message's text (Bot API `sendMessage`). */
export const TELEGRAM_TEXT_MAX = 4096;
export const VOICECODE_SENDER_NAME = 'voicecode';

/**
 * VOICECODE text template (spec 2.2): `Код авторизации от {brand}: {code}.`, where the code's digits may be written
 * together, separated by spaces, or separated by one special character.
 */
/**
 * Per channel, the longest text content (a string, or a content object's `text`) that can be valid, in UTF-16 code
 * units, and that limit as a client reads it. A text longer than `units` is invalid whatever it holds: a character
 * counts at least one septet of an SMS part (UCS-2 parts hold fewer), and a character counted by `charCount` is at
 * most two code units. Dispatches refuse a substituted text from its length, before building it.
 */
export const TEXT_BOUNDS: Readonly<Record<Channel, { readonly units: number; readonly limit: string }>> = {
  SMS: { units: SMS_MAX_PARTS * SMS_CAPACITY.gsm7.multi, limit: `${SMS_MAX_PARTS} SMS parts` },
  FLASHCALL: { units: 4, limit: '4 digits' },
  VOICECODE: { units: 2 * VOICECODE_TEXT_MAX, limit: `${VOICECODE_TEXT_MAX} characters` },
  VK: { units: 2 * VK_TEXT_MAX, limit: `${VK_TEXT_MAX} characters` },
  WHATSAPP: { units: 2 * WHATSAPP_LIMITS.text, limit: `${WHATSAPP_LIMITS.text} characters` },
  VIBER: { units: 2 * VIBER_TEXT_MAX, limit: `${VIBER_TEXT_MAX} characters` },
  TELEGRAM: { units: 2 * TELEGRAM_TEXT_MAX, limit: `${TELEGRAM_TEXT_MAX} characters` },
};

const VOICECODE_TEMPLATE = /^Код авторизации от (\S(?:.*\S)?): (\d(?:[^\p{L}\p{N}]?\d)*)\.$/u;
const FLASHCALL_CODE = /^\d{4}$/;
/** A verification code of the Telegram Gateway API: 4 to 8 digits. */
const TELEGRAM_CODE = /^[0-9]{4,8}$/;

export interface ContentResult {
  /** Parts the message is billed and sent as: SMS parts, 1 for every other channel. */
  readonly totalParts: number;
  /**
   * The content as stored: as sent, except a FLASHCALL code sent as a number, which becomes its string, and a
   * TELEGRAM content, which becomes `{contentType: "text", text}` or `{contentType: "code", code}` whatever form it
   * came in (its connector tells a text for the Bot API from a code for the Gateway API by it).
   */
  readonly content: unknown;
}

const invalid = (): HeraldError => herald('invalidContent');
const detail = (reason: string): HeraldError => herald('invalidContentDetail', { reason });

/**
 * Validates `content` for its channel (spec sections 2.2 to 2.5 and 8); throws the first problem.
 * `isArrangedVoicecode` answers whether a VOICECODE content matches one of the account's approved VOICECODE
 * templates; it is asked only for a text that does not follow the spec's template.
 */
export function validateContent(
  channel: Channel,
  content: unknown,
  isArrangedVoicecode: (content: unknown) => boolean = () => false,
): ContentResult {
  switch (channel) {
    case 'SMS':
      return { totalParts: smsContent(content), content };
    case 'FLASHCALL':
      return { totalParts: 1, content: flashcallContent(content) };
    case 'VOICECODE':
      voicecodeContent(content, isArrangedVoicecode);
      return { totalParts: 1, content };
    case 'VK':
      plainText(content, VK_TEXT_MAX);
      return { totalParts: 1, content };
    case 'WHATSAPP':
      validateWhatsappContent(content);
      return { totalParts: 1, content };
    case 'VIBER':
      viberContent(content);
      return { totalParts: 1, content };
    case 'TELEGRAM':
      return { totalParts: 1, content: telegramContent(content) };
  }
}

/** A TELEGRAM content as stored: a text for the Bot API or a code for the Gateway API (DESIGN 18). */
export type TelegramContent = { contentType: 'text'; text: string } | { contentType: 'code'; code: string };

/** Whether a stored TELEGRAM content is a code, which goes through the Gateway API. */
export function isTelegramCode(content: unknown): content is { contentType: 'code'; code: string } {
  return isPlainObject(content) && content.contentType === 'code';
}

/**
 * TELEGRAM content (DESIGN 18): a string, `{text}` or `{contentType: "text", text}` is a text of 1 to 4096
 * characters; `{contentType: "code", code}` a code of 4 to 8 digits. Anything else is `Invalid content`.
 */
function telegramContent(content: unknown): TelegramContent {
  if (typeof content === 'string') return { contentType: 'text', text: plainText(content, TELEGRAM_TEXT_MAX) };
  if (!isPlainObject(content)) throw invalid();
  const keys = Object.keys(content);
  if (content.contentType === 'code') {
    if (keys.some((key) => key !== 'contentType' && key !== 'code')) throw invalid();
    if (typeof content.code !== 'string' || !TELEGRAM_CODE.test(content.code)) throw invalid();
    return { contentType: 'code', code: content.code };
  }
  if (content.contentType !== undefined && content.contentType !== 'text') throw invalid();
  if (keys.some((key) => key !== 'contentType' && key !== 'text')) throw invalid();
  return { contentType: 'text', text: plainText(content.text, TELEGRAM_TEXT_MAX) };
}

/** A UTF-8 text without byte order mark, 1 to `max` characters. */
function plainText(content: unknown, max: number): string {
  if (typeof content !== 'string') throw invalid();
  if (isBlank(content)) throw herald('blankContent');
  if (startsWithBom(content) || charCount(content) > max) throw invalid();
  return content;
}

function smsContent(content: unknown): number {
  const text = plainText(content, Number.MAX_SAFE_INTEGER);
  const totalParts = smsPartCount(text);
  // Concatenated SMS number their parts in one byte.
  if (totalParts > SMS_MAX_PARTS) throw invalid();
  return totalParts;
}

/**
 * The 4-digit code as a string, or as an integer 1000 to 9999 (real clients send numbers), returned as
 * the string that is stored and shown. A number cannot carry leading zeros, so 0123 must come as a string.
 */
function flashcallContent(content: unknown): string {
  if (typeof content === 'number') {
    if (!Number.isInteger(content) || content < 1000 || content > 9999) throw invalid();
    return String(content);
  }
  if (typeof content !== 'string') throw invalid();
  if (isBlank(content)) throw herald('blankContent');
  if (!FLASHCALL_CODE.test(content)) throw invalid();
  return content;
}

function voicecodeContent(content: unknown, isArranged: (content: unknown) => boolean): void {
  if (!isPlainObject(content)) throw invalid();
  for (const key of Object.keys(content)) if (key !== 'contentType' && key !== 'text') throw invalid();
  if (content.contentType !== 'text') throw invalid();
  const text = content.text;
  if (typeof text !== 'string') throw invalid();
  if (isBlank(text)) throw herald('blankContent');
  if (startsWithBom(text) || charCount(text) > VOICECODE_TEXT_MAX) throw invalid();
  if (!VOICECODE_TEMPLATE.test(text) && !isArranged(content)) throw invalid();
}

const VIBER_FIELDS = {
  text: { required: ['text'], optional: [] },
  button: { required: ['text', 'caption', 'action'], optional: ['imageUrl'] },
  image: { required: ['imageUrl'], optional: [] },
} as const;

const VIBER_ALLOWED = {
  text: [...VIBER_FIELDS.text.required, ...VIBER_FIELDS.text.optional],
  button: [...VIBER_FIELDS.button.required, ...VIBER_FIELDS.button.optional],
  image: [...VIBER_FIELDS.image.required, ...VIBER_FIELDS.image.optional],
};

/**
 * VIBER content (spec 2.5 shows shapes only; the limits are Herald's, from Viber's business messages: text up to
 * 1000 characters, button caption up to 30, links http(s)).
 */
function viberContent(value: unknown): void {
  const { object: content, type } = readContentObject(value, VIBER_ALLOWED);
  const shape = VIBER_FIELDS[type];
  for (const field of shape.required) {
    const value = content[field];
    if (value === undefined || value === null) throw detail(`missing ${field}`);
  }
  if (content.text !== undefined) {
    if (typeof content.text !== 'string') throw detail('text must be a string');
    if (isBlank(content.text)) throw herald('blankContent');
    if (startsWithBom(content.text)) throw detail('text must not start with a byte order mark');
    if (charCount(content.text) > VIBER_TEXT_MAX) throw detail(`text must be 1 to ${VIBER_TEXT_MAX} characters`);
  }
  if (content.caption !== undefined) {
    if (
      typeof content.caption !== 'string' ||
      isBlank(content.caption) ||
      charCount(content.caption) > VIBER_CAPTION_MAX
    ) {
      throw detail(`caption must be 1 to ${VIBER_CAPTION_MAX} characters`);
    }
  }
  for (const field of ['action', 'imageUrl'] as const) {
    const value = content[field];
    if (value !== undefined && value !== null && (typeof value !== 'string' || !/^https?:\/\/\S+$/.test(value))) {
      throw detail(`${field} must be an http(s) link`);
    }
  }
}
