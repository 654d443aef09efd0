import { herald, HeraldError, showValue } from '../errors/catalogue.js';
import { isReadTracked, type ValidMessage } from '../messages/index.js';
import { validateCommonFields, validateMessage, type ValidationContext, type WindowValues } from '../sending/index.js';
import { type Channel, isChannel } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';

/** Steps of one cascade: 1 to 6. */
export const MAX_STEPS = 6;
export const CONDITIONS = ['not_delivered', 'not_read'] as const;
export type Condition = (typeof CONDITIONS)[number];

/** The fields of a cascade object that belong to the whole cascade. */
const COMMON_FIELDS = [
  'destination',
  'tags',
  'trafficType',
  'useLocalTime',
  'localSendTime',
  'localCompletionTime',
  'hours',
  'days',
  'shortUrl',
  'callbackUrl',
  'callbackEvents',
] as const;
const WINDOW_FIELDS = ['useLocalTime', 'localSendTime', 'localCompletionTime', 'hours', 'days'] as const;
/** The fields of a step. */
const STEP_FIELDS = ['channelType', 'senderName', 'content', 'ttl', 'externalMessageId', 'condition'] as const;
/** Channels whose content is a string (see textContent). */
const STRING_CHANNELS: ReadonlySet<Channel> = new Set(['SMS', 'VK', 'FLASHCALL']);

export interface ValidStep {
  /** The step as a message, the cascade's common fields in it; its window is the cascade's. */
  readonly message: ValidMessage;
  /** When the next step follows; null on the last step. */
  readonly condition: Condition | null;
}

export interface ValidCascade {
  readonly steps: readonly ValidStep[];
}

/**
 * Validates one cascade object: its common fields, then each step as a message of its channel with the common
 * fields it accepts (the window fields apply to every step whatever its channel). Errors carry `step` (0-based)
 * when they are a step's, and only then (an error of a common field is the cascade's); the caller adds `index`.
 * `shortUrl` follows the rule of a message of a channel that does not take it: refused when no step takes it.
 */
export function validateCascade(input: unknown, ctx: ValidationContext): ValidCascade {
  if (!isPlainObject(input)) throw herald('notAnObject');
  for (const key of Object.keys(input)) {
    if (input[key] === undefined || input[key] === null) continue;
    if (key !== 'cascade' && !(COMMON_FIELDS as readonly string[]).includes(key))
      throw herald('fieldNotAccepted', { field: key });
  }
  const steps = input.cascade;
  if (steps === undefined || steps === null) throw herald('missingField', { field: 'cascade' });
  if (!Array.isArray(steps) || steps.length < 1 || steps.length > MAX_STEPS)
    throw herald('invalidField', { field: 'cascade', value: `an array of 1 to ${MAX_STEPS} steps` });
  if (input.destination === undefined || input.destination === null)
    throw herald('missingField', { field: 'destination' });
  // As a message of a channel that does not take shortUrl refuses it, whatever its value, before anything else.
  const channels = steps.map((step: unknown) => (isPlainObject(step) ? step.channelType : undefined));
  const shortUrlGiven = input.shortUrl !== undefined && input.shortUrl !== null;
  if (shortUrlGiven && channels.every(isChannel) && !channels.some(acceptsShortUrl))
    throw herald('fieldNotAccepted', { field: 'shortUrl' });
  const { window } = validateCommonFields(input, ctx);
  const common: Record<string, unknown> = {};
  for (const field of COMMON_FIELDS) common[field] = input[field];

  const valid = steps.map((step: unknown, i): ValidStep => {
    try {
      return validateStep(step, i === steps.length - 1, common, window, ctx);
    } catch (error) {
      if (error instanceof HeraldError) throw error.with({ step: i });
      throw error;
    }
  });
  return { steps: valid };
}

function validateStep(
  step: unknown,
  last: boolean,
  common: Record<string, unknown>,
  window: WindowValues,
  ctx: ValidationContext,
): ValidStep {
  if (!isPlainObject(step)) throw herald('notAnObject');
  for (const key of Object.keys(step)) {
    if (step[key] === undefined || step[key] === null) continue;
    if (!(STEP_FIELDS as readonly string[]).includes(key)) throw herald('fieldNotAccepted', { field: key });
  }
  const condition = validateCondition(step.condition, last);
  const channel = step.channelType;
  const message: Record<string, unknown> = {
    channelType: channel,
    senderName: step.senderName,
    content: textContent(channel, step.content),
    ttl: step.ttl,
    externalMessageId: step.externalMessageId,
  };
  // The common fields the step's channel accepts (a FLASHCALL step takes no window or shortUrl of its own).
  for (const [field, value] of Object.entries(common)) {
    const windowField = (WINDOW_FIELDS as readonly string[]).includes(field);
    if (!windowField && (field !== 'shortUrl' || acceptsShortUrl(channel))) message[field] = value;
    else if (windowField && acceptsWindow(channel)) message[field] = value;
  }
  const valid = validateMessage(message, ctx);
  // Only a step whose message is read or not read can be followed on `not_read` (a TELEGRAM step: a code).
  if (condition === 'not_read' && !isReadTracked(valid.channelType, valid.content))
    throw herald('invalidField', { field: 'condition', value: 'not_read' });
  return { message: { ...valid, ...window }, condition };
}

function validateCondition(value: unknown, last: boolean): Condition | null {
  if (value === undefined || value === null) {
    if (last) return null;
    throw herald('missingField', { field: 'condition' });
  }
  if (last) throw herald('fieldNotAccepted', { field: 'condition' });
  if (!(CONDITIONS as readonly unknown[]).includes(value))
    throw herald('invalidField', { field: 'condition', value: typeof value === 'string' ? value : showValue(value) });
  return value as Condition;
}

/**
 * A step's text in the form its channel takes: SMS, VK and FLASHCALL take a string, which a step may also give as
 * `{"text": ...}` (optionally with `"contentType": "text"`); VOICECODE, VIBER, WHATSAPP and TELEGRAM take
 * `{"contentType": "text", "text": ...}`, which a step may also give as a string or without its contentType.
 */
function textContent(channel: unknown, content: unknown): unknown {
  if (!isChannel(channel)) return content;
  const textObject =
    isPlainObject(content) &&
    typeof content.text === 'string' &&
    Object.keys(content).every((k) => k === 'text' || (k === 'contentType' && content.contentType === 'text'));
  if (STRING_CHANNELS.has(channel)) return textObject ? (content as { text: string }).text : content;
  if (typeof content === 'string') return { contentType: 'text', text: content };
  return textObject ? { contentType: 'text', text: (content as { text: string }).text } : content;
}

const acceptsShortUrl = (channel: unknown): boolean =>
  isChannel(channel) && channel !== 'FLASHCALL' && channel !== 'VOICECODE';
const acceptsWindow = acceptsShortUrl;
