import { herald, type HeraldError } from '../errors/catalogue.js';
import { charCount, isBlank, isPlainObject, startsWithBom } from '../shared/text.js';
import { readContentObject } from './contentObject.js';

/** Limits of spec sections 2.3, 2.4 and 8 for WHATSAPP content. */
export const WHATSAPP_LIMITS = {
  text: 1000,
  headerText: 60,
  footerText: 60,
  buttonText: 20,
  buttonField: 1000,
  buttons: 3,
} as const;

const BODY_FIELDS = {
  text: ['text'],
  image: ['imageUrl', 'imageName'],
  document: ['documentUrl', 'documentName'],
} as const;
const DECORATIONS = ['header', 'footer', 'buttons'] as const;
const ALLOWED = {
  text: [...BODY_FIELDS.text, ...DECORATIONS],
  image: [...BODY_FIELDS.image, ...DECORATIONS],
  document: [...BODY_FIELDS.document, ...DECORATIONS],
};

const detail = (reason: string): HeraldError => herald('invalidContentDetail', { reason });

/**
 * Validates a WHATSAPP content object (text, image or document, with optional header, footer and buttons) by
 * spec sections 2.3 and 2.4, rules 1 to 6. Throws the first problem found.
 */
export function validateWhatsappContent(value: unknown): void {
  const { object: content, type } = readContentObject(value, ALLOWED);
  const fields = BODY_FIELDS[type];
  if (type === 'text') {
    const text = content.text;
    if (text === undefined || text === null) throw detail('missing text');
    if (typeof text !== 'string') throw detail('text must be a string');
    if (isBlank(text)) throw herald('blankContent');
    if (startsWithBom(text)) throw detail('text must not start with a byte order mark');
    if (charCount(text) > WHATSAPP_LIMITS.text) throw detail(`text must be 1 to ${WHATSAPP_LIMITS.text} characters`);
  } else {
    for (const field of fields) requireNonEmptyString(content[field], field);
    const url = type === 'image' ? 'imageUrl' : 'documentUrl';
    requireHttpLink(content[url] as string, url);
  }

  if (content.header !== undefined && content.header !== null) validateHeader(content.header);
  if (content.footer !== undefined && content.footer !== null) validateFooter(content.footer);
  if (content.buttons !== undefined && content.buttons !== null) validateButtons(content.buttons);
}

function requireNonEmptyString(value: unknown, field: string): void {
  if (value === undefined || value === null) throw detail(`missing ${field}`);
  if (typeof value !== 'string' || isBlank(value)) throw detail(`${field} must be a non-empty string`);
}

/** Media the provider fetches must be an absolute http(s) URL: anything else fails only at send time. */
function requireHttpLink(value: string, field: string): void {
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    throw detail(`${field} must be an http(s) link`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw detail(`${field} must be an http(s) link`);
}

function checkLength(value: unknown, field: string, max: number): void {
  if (typeof value !== 'string' || value.length === 0 || charCount(value) > max) {
    throw detail(`${field} must be 1 to ${max} characters`);
  }
}

/** Rule 1: one of text; documentUrl (with an optional documentName); imageUrl. */
function validateHeader(header: unknown): void {
  if (!isPlainObject(header)) throw detail('header must be an object');
  const present = Object.keys(header).filter((key) => header[key] !== undefined && header[key] !== null);
  for (const key of present) {
    if (!['text', 'documentUrl', 'documentName', 'imageUrl'].includes(key)) throw detail(`unknown field header.${key}`);
  }
  const kinds = ['text', 'documentUrl', 'imageUrl'].filter((key) => present.includes(key));
  if (kinds.length === 0) {
    throw detail(
      present.includes('documentName')
        ? 'header.documentName is only allowed together with header.documentUrl'
        : 'header must have text, documentUrl or imageUrl',
    );
  }
  if (kinds.length > 1) throw detail(`header may use only one of text, documentUrl, imageUrl; got ${kinds.join(', ')}`);
  if (kinds[0] === 'text') {
    if (present.includes('documentName'))
      throw detail('header.documentName is only allowed together with header.documentUrl');
    checkLength(header.text, 'header.text', WHATSAPP_LIMITS.headerText);
  } else if (kinds[0] === 'documentUrl') {
    requireNonEmptyString(header.documentUrl, 'header.documentUrl');
    requireHttpLink(header.documentUrl as string, 'header.documentUrl');
    if (present.includes('documentName')) requireNonEmptyString(header.documentName, 'header.documentName');
  } else {
    if (present.includes('documentName'))
      throw detail('header.documentName is only allowed together with header.documentUrl');
    requireNonEmptyString(header.imageUrl, 'header.imageUrl');
    requireHttpLink(header.imageUrl as string, 'header.imageUrl');
  }
}

function validateFooter(footer: unknown): void {
  if (!isPlainObject(footer)) throw detail('footer must be an object');
  for (const key of Object.keys(footer)) if (key !== 'text') throw detail(`unknown field footer.${key}`);
  checkLength(footer.text, 'footer.text', WHATSAPP_LIMITS.footerText);
}

/** Rules 2 to 5: button kinds, one kind per message, one url and one phone, at most 3 text or 2 link buttons. */
function validateButtons(buttons: unknown): void {
  if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > WHATSAPP_LIMITS.buttons) {
    throw detail(`buttons must be an array of 1 to ${WHATSAPP_LIMITS.buttons} objects`);
  }
  let links = 0;
  let texts = 0;
  let urls = 0;
  let phones = 0;
  buttons.forEach((button: unknown, i) => {
    const at = `buttons[${i}]`;
    if (!isPlainObject(button)) throw detail(`${at} must be an object`);
    for (const key of Object.keys(button)) {
      if (!['text', 'url', 'phone', 'payload'].includes(key)) throw detail(`unknown field ${at}.${key}`);
    }
    if (button.text === undefined || button.text === null) throw detail(`missing ${at}.text`);
    checkLength(button.text, `${at}.text`, WHATSAPP_LIMITS.buttonText);
    const has = (key: string): boolean => button[key] !== undefined && button[key] !== null;
    for (const key of ['url', 'phone', 'payload']) {
      if (has(key)) checkLength(button[key], `${at}.${key}`, WHATSAPP_LIMITS.buttonField);
    }
    if (has('url') && !(button.url as string).startsWith('http')) throw detail(`${at}.url must begin with http`);
    if (has('payload') && (has('url') || has('phone')))
      throw detail(`${at}: payload cannot be combined with url or phone`);
    if (has('url') && has('phone')) throw detail(`${at}: a link button has either url or phone, not both`);
    if (has('payload')) texts++;
    else if (has('url') || has('phone')) links++;
    else throw detail(`${at} needs url or phone (link button) or payload (text button)`);
    if (has('url')) urls++;
    if (has('phone')) phones++;
  });
  if (links > 0 && texts > 0) throw detail('buttons must all be of one type: link buttons or text buttons');
  if (urls > 1) throw detail('at most one button with url is allowed');
  if (phones > 1) throw detail('at most one button with phone is allowed');
  // Rule 5 follows: one url and one phone make at most 2 link buttons, and 3 buttons at most 3 text buttons.
}
