import {
  CALLBACK_URL_MAX_LENGTH,
  type CallbackEvent,
  callbackUrlProblem,
  isCallbackEvent,
} from '../callbacks/index.js';
import { maskCallbackUrl } from '../shared/callbackUrlMask.js';
import { herald, showValue } from '../errors/catalogue.js';
import { linkCount, MAX_LINKS_PER_MESSAGE, UNSUBSCRIBE_PLACEHOLDER } from '../links/index.js';
import { type Channel, isChannel } from '../shared/channels.js';
import { charCount, isPlainObject } from '../shared/text.js';
import { defaultTrafficType, TRAFFIC_TYPES, type TrafficType } from '../shared/trafficTypes.js';
import { wallBound, windowZones } from '../schedule/index.js';
import { formatLocalTime, parseLocalTime } from '../util/time.js';
import { isTelegramCode, VOICECODE_SENDER_NAME, validateContent } from './channelContent.js';
import { isTelegramBotUsername, SENDER_NAME_MAX_LENGTH } from '../senderNames/index.js';
import { type Destination, normaliseDestination } from '../numbering/index.js';
import type { ValidMessage } from '../messages/index.js';

/** Every field of the message request object (spec 2.1). */
export const MESSAGE_FIELDS = [
  'channelType',
  'senderName',
  'destination',
  'content',
  'tags',
  'useLocalTime',
  'localSendTime',
  'localCompletionTime',
  'ttl',
  'hours',
  'days',
  'shortUrl',
  'callbackUrl',
  'callbackEvents',
  'externalMessageId',
  'trafficType',
] as const;
type Field = (typeof MESSAGE_FIELDS)[number];

const ALL_BUT_EXTERNAL_ID: readonly Field[] = MESSAGE_FIELDS.filter((f) => f !== 'externalMessageId');
const REQUIRED: readonly Field[] = ['channelType', 'senderName', 'destination', 'content'];
/** Fields every channel accepts beside its own: the traffic type (Herald's, after the real service's). */
const EVERY_CHANNEL: readonly Field[] = [...REQUIRED, 'tags', 'callbackUrl', 'callbackEvents', 'trafficType'];

interface ChannelRule {
  /** Fields a message of the channel may carry (spec 2.2 "Other fields accepted"). */
  readonly accepts: ReadonlySet<Field>;
  readonly ttl?: { readonly min: number; readonly max: number };
}

/**
 * Spec 2.2 per channel. VIBER is not in the spec's table; Herald treats it as VK and WHATSAPP (every field but
 * externalMessageId, ttl 60 to 86400).
 */
export const CHANNEL_RULES: Readonly<Record<Channel, ChannelRule>> = {
  SMS: { accepts: new Set(ALL_BUT_EXTERNAL_ID), ttl: { min: 60, max: 86_400 } },
  FLASHCALL: { accepts: new Set(EVERY_CHANNEL) },
  VOICECODE: {
    accepts: new Set([...EVERY_CHANNEL, 'ttl', 'externalMessageId']),
    ttl: { min: 30, max: 86_400 },
  },
  WHATSAPP: { accepts: new Set(ALL_BUT_EXTERNAL_ID), ttl: { min: 60, max: 86_400 } },
  VIBER: { accepts: new Set(ALL_BUT_EXTERNAL_ID), ttl: { min: 60, max: 86_400 } },
  VK: { accepts: new Set(ALL_BUT_EXTERNAL_ID), ttl: { min: 60, max: 86_400 } },
  // A text's bounds; a code's are TELEGRAM_CODE_TTL's.
  TELEGRAM: { accepts: new Set(ALL_BUT_EXTERNAL_ID), ttl: { min: 60, max: 86_400 } },
};

/**
 * A TELEGRAM code's ttl: the Gateway API's bounds, 30 to 3600 s, and its lifetime when the message gives none (DESIGN
 * 18). The default is stored as the message's ttl, so that every later step (plans, expiry, the cascade's next step,
 * the connector's `ttl`) sees the same lifetime, and GET shows it.
 */
export const TELEGRAM_CODE_TTL = { min: 30, max: 3600, default: 3600 } as const;

/**
 * Channels whose sender name must be registered, approved and started (spec 2.2); a TELEGRAM name (a bot) also needs
 * its bot token (DESIGN 18).
 */
export const REGISTERED_SENDER_CHANNELS: ReadonlySet<Channel> = new Set(['SMS', 'WHATSAPP', 'TELEGRAM']);

export const LIMITS = {
  sendTimeBeforeNowMs: 12 * 3600_000,
  sendTimeAfterNowMs: 7 * 86_400_000,
  completionTimeAfterNowMs: 70 * 86_400_000,
  externalMessageId: 100,
  /** Herald's own bounds on tags (the spec sets none): enough for any reporting scheme, small enough to index. */
  tags: 20,
  tagLength: 64,
  // Read when used, not when this module loads: the capabilities that own these bounds may load after it (their
  // index files and this one reach each other through the routes they export).
  /** Ceilings on free-form strings, on every channel. */
  get senderName(): number {
    return SENDER_NAME_MAX_LENGTH;
  },
  get callbackUrl(): number {
    return CALLBACK_URL_MAX_LENGTH;
  },
  /** With `shortUrl: true` (links/shortLinks.ts says why). */
  get linksPerMessage(): number {
    return MAX_LINKS_PER_MESSAGE;
  },
} as const;

// "Letters of any case, digits, underscore" (spec 2.1): letters of every script, as a \w that knows Unicode.
const TAG = /^[\p{L}\p{N}_]+$/u;

export interface ValidationContext {
  /** The request time, the same for every message of a batch. */
  readonly now: Date;
  readonly isSenderNameActive: (channel: Channel, name: string) => boolean;
  /** Whether a VOICECODE content matches one of the account's approved VOICECODE templates. */
  readonly isArrangedVoicecode?: (content: unknown) => boolean;
  readonly allowPrivateCallbacks: boolean;
  readonly shortenerAvailable: boolean;
  /** The subscriber's time zones, in which its local times are written when useLocalTime is true. */
  readonly subscriberZones: (destination: Destination) => readonly string[];
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Validates one message object by every rule of spec sections 2, 7 and 8 and returns it normalised, or throws the
 * first problem as a HeraldError. Fields are checked in the order of the spec's field table; `null` counts as absent.
 */
export function validateMessage(input: unknown, ctx: ValidationContext): ValidMessage {
  if (!isPlainObject(input)) throw herald('notAnObject');

  const channel = input.channelType;
  if (!present(channel)) throw herald('missingField', { field: 'channelType' });
  if (!isChannel(channel)) throw herald('invalidField', { field: 'channelType', value: showValue(channel) });
  const rule = CHANNEL_RULES[channel];

  for (const key of Object.keys(input)) {
    if (!rule.accepts.has(key as Field) && present(input[key])) throw herald('fieldNotAccepted', { field: key });
  }
  for (const field of REQUIRED) {
    if (!present(input[field])) throw herald('missingField', { field });
  }

  const senderName = validateSenderName(channel, input.senderName, ctx);
  const destination = normaliseDestination(input.destination);
  if (!destination) throw herald('invalidMsisdn');
  const { totalParts, content } = validateContent(channel, input.content, ctx.isArrangedVoicecode);
  const tags = validateTags(input.tags);
  const useLocalTime = optionalBoolean(input.useLocalTime, 'useLocalTime') ?? true;
  const zones = (): readonly string[] => windowZones(useLocalTime, ctx.subscriberZones(destination));
  const { localSendTime, localCompletionTime } = validateTimes(
    input.localSendTime,
    input.localCompletionTime,
    zones,
    ctx.now,
  );
  const telegramCode = channel === 'TELEGRAM' && isTelegramCode(content);
  const ttl = telegramCode
    ? (validateTtl(input.ttl, Object.assign({}, rule, { ttl: TELEGRAM_CODE_TTL })) ?? TELEGRAM_CODE_TTL.default)
    : validateTtl(input.ttl, rule);
  const hours = validateHourOrDayList(input.hours, 0, 23, 'hours');
  const days = validateHourOrDayList(input.days, 1, 7, 'days');
  const shortUrl = optionalBoolean(input.shortUrl, 'shortUrl') ?? false;
  if (shortUrl && !ctx.shortenerAvailable) throw herald('shortenerUnavailable');
  if (shortUrl) checkLinkCount(content);
  if (!ctx.shortenerAvailable && shortenableText(content)?.includes(UNSUBSCRIBE_PLACEHOLDER))
    throw herald('invalidContentDetail', { reason: UNSUBSCRIBE_NEEDS_SHORTENER });
  const callbackUrl = validateCallbackUrl(input.callbackUrl, ctx.allowPrivateCallbacks);
  const callbackEvents = validateCallbackEvents(input.callbackEvents);
  const externalMessageId = validateExternalMessageId(input.externalMessageId);
  const trafficType = validateTrafficType(input.trafficType) ?? defaultTrafficType(channel);

  return {
    channelType: channel,
    senderName,
    destination: destination.msisdn,
    country: destination.country ?? null,
    content,
    tags,
    useLocalTime,
    localSendTime,
    localCompletionTime,
    ttl,
    hours,
    days,
    shortUrl,
    callbackUrl,
    callbackEvents,
    externalMessageId,
    totalParts,
    trafficType,
  };
}

/** An optional traffic type: one of TRAFFIC_TYPES. */
export function validateTrafficType(value: unknown): TrafficType | undefined {
  if (!present(value)) return undefined;
  if (!(TRAFFIC_TYPES as readonly unknown[]).includes(value))
    throw herald('invalidField', { field: 'trafficType', value: showValue(value) });
  return value as TrafficType;
}

/** The fields of a message's send window, validated. */
export type WindowValues = Pick<
  ValidMessage,
  'useLocalTime' | 'localSendTime' | 'localCompletionTime' | 'hours' | 'days'
>;

/** The fields of spec 2.1 that are not per channel, validated: a cascade's common fields. */
export interface CommonValues {
  readonly destination: Destination;
  readonly window: WindowValues;
  readonly shortUrl: boolean;
}

/**
 * Validates the fields of a message that are not per channel (destination, tags, trafficType, the window fields,
 * shortUrl, callbackUrl, callbackEvents): a cascade's common fields, whose errors are the cascade's, not a step's.
 * The destination must be present.
 */
export function validateCommonFields(input: Record<string, unknown>, ctx: ValidationContext): CommonValues {
  const destination = normaliseDestination(input.destination);
  if (!destination) throw herald('invalidMsisdn');
  validateTags(input.tags);
  validateTrafficType(input.trafficType);
  const window = validateWindowFields(input, destination, ctx);
  const shortUrl = optionalBoolean(input.shortUrl, 'shortUrl') ?? false;
  if (shortUrl && !ctx.shortenerAvailable) throw herald('shortenerUnavailable');
  validateCallbackUrl(input.callbackUrl, ctx.allowPrivateCallbacks);
  validateCallbackEvents(input.callbackEvents);
  return { destination, window, shortUrl };
}

/**
 * Validates the send window fields of a message (or of a cascade, whose window is every step's) to `destination`
 * (normalised), whose zones its local times are written in.
 */
function validateWindowFields(
  input: Record<string, unknown>,
  destination: Destination,
  ctx: ValidationContext,
): WindowValues {
  const useLocalTime = optionalBoolean(input.useLocalTime, 'useLocalTime') ?? true;
  const zones = (): readonly string[] => windowZones(useLocalTime, ctx.subscriberZones(destination));
  const { localSendTime, localCompletionTime } = validateTimes(
    input.localSendTime,
    input.localCompletionTime,
    zones,
    ctx.now,
  );
  const hours = validateHourOrDayList(input.hours, 0, 23, 'hours');
  const days = validateHourOrDayList(input.days, 1, 7, 'days');
  return { useLocalTime, localSendTime, localCompletionTime, hours, days };
}

function validateSenderName(channel: Channel, value: unknown, ctx: ValidationContext): string {
  if (typeof value !== 'string') throw herald('invalidField', { field: 'senderName', value: showValue(value) });
  if (charCount(value) > LIMITS.senderName) throw herald('overCeiling', { field: 'senderName' });
  if (channel === 'VOICECODE') {
    if (value !== VOICECODE_SENDER_NAME)
      throw herald('noActiveSenderName', { channelType: channel, senderName: value });
  } else if (REGISTERED_SENDER_CHANNELS.has(channel)) {
    // A TELEGRAM name must also be a bot's username (DESIGN 18), as the registration of its sender name checked.
    if ((channel === 'TELEGRAM' && !isTelegramBotUsername(value)) || !ctx.isSenderNameActive(channel, value)) {
      throw herald('noActiveSenderName', { channelType: channel, senderName: value });
    }
  } else if (value.trim() === '') {
    throw herald('invalidField', { field: 'senderName', value: showValue(value) });
  }
  return value;
}

/** Why a text with `{unsubscribe}` is refused where Herald has no short-link base (DESIGN 20). */
export const UNSUBSCRIBE_NEEDS_SHORTENER = `${UNSUBSCRIBE_PLACEHOLDER} needs the url shortener (HERALD_SHORT_URL_BASE)`;

/** The text whose links `shortUrl` shortens: a string content, or an object content's `text`. */
export function shortenableText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  return isPlainObject(content) && typeof content.text === 'string' ? content.text : undefined;
}

function checkLinkCount(content: unknown): void {
  const text = shortenableText(content);
  if (text !== undefined && linkCount(text, LIMITS.linksPerMessage) > LIMITS.linksPerMessage) {
    throw herald('invalidContentDetail', {
      reason: `at most ${LIMITS.linksPerMessage} links can be shortened in one message`,
    });
  }
}

function validateTags(value: unknown): string[] {
  if (!present(value)) return [];
  const ok =
    Array.isArray(value) &&
    value.length <= LIMITS.tags &&
    value.every((tag) => typeof tag === 'string' && TAG.test(tag) && charCount(tag) <= LIMITS.tagLength);
  if (!ok) throw herald('invalidTags', { tags: showValue(value) });
  return value as string[];
}

function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (!present(value)) return undefined;
  if (typeof value !== 'boolean') throw herald('invalidField', { field, value: showValue(value) });
  return value;
}

/**
 * Spec 2.1 and 8: localSendTime within [now - 12 h, now + 7 days], localCompletionTime within
 * [max(localSendTime, now), now + 70 days] (a completion time already past is refused), at whole seconds. Both are
 * wall-clock times in `zones` (the subscriber's, or Moscow's): the bounds are compared, and shown in errors, as the
 * wall-clock times of those instants there (of several zones, the tightest).
 */
function validateTimes(
  send: unknown,
  completion: unknown,
  zones: () => readonly string[],
  now: Date,
): { localSendTime: string | null; localCompletionTime: string | null } {
  const nowMs = Math.floor(now.getTime() / 1000) * 1000;
  let sendMs: number | undefined;
  if (present(send)) {
    sendMs = typeof send === 'string' ? parseLocalTime(send) : undefined;
    if (sendMs === undefined) throw herald('invalidField', { field: 'localSendTime', value: showValue(send) });
    const minSend = wallBound(zones(), nowMs - LIMITS.sendTimeBeforeNowMs, 'lower');
    if (sendMs < minSend) throw herald('sendTimeTooEarly', { minLocalSendTime: formatLocalTime(minSend) });
    const maxSend = wallBound(zones(), nowMs + LIMITS.sendTimeAfterNowMs, 'upper');
    if (sendMs > maxSend) throw herald('sendTimeTooLate', { maxLocalSendTime: formatLocalTime(maxSend) });
  }
  if (present(completion)) {
    const completionMs = typeof completion === 'string' ? parseLocalTime(completion) : undefined;
    if (completionMs === undefined) {
      throw herald('invalidField', { field: 'localCompletionTime', value: showValue(completion) });
    }
    const minCompletion = Math.max(sendMs ?? -Infinity, wallBound(zones(), nowMs, 'lower'));
    if (completionMs < minCompletion) {
      throw herald('completionTimeTooEarly', { minLocalCompletionTime: formatLocalTime(minCompletion) });
    }
    const maxCompletion = wallBound(zones(), nowMs + LIMITS.completionTimeAfterNowMs, 'upper');
    if (completionMs > maxCompletion) {
      throw herald('completionTimeTooLate', { maxLocalCompletionTime: formatLocalTime(maxCompletion) });
    }
  }
  return {
    localSendTime: present(send) ? (send as string) : null,
    localCompletionTime: present(completion) ? (completion as string) : null,
  };
}

function validateTtl(value: unknown, rule: ChannelRule): number | null {
  if (!present(value)) return null;
  const bounds = rule.ttl!;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw herald('invalidTtl', { ttl: showValue(value) });
  }
  return value;
}

function validateHourOrDayList(value: unknown, min: number, max: number, field: 'hours' | 'days'): number[] | null {
  if (!present(value)) return null;
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) &&
    new Set(value).size === value.length;
  if (!ok) {
    throw field === 'hours'
      ? herald('invalidHours', { hours: showValue(value) })
      : herald('invalidDays', { days: showValue(value) });
  }
  return value as number[];
}

function validateCallbackUrl(value: unknown, allowPrivate: boolean): string | null {
  if (!present(value)) return null;
  if (typeof value !== 'string') throw herald('invalidCallbackUrl', { reason: `not a string: ${showValue(value)}` });
  if (value.length > LIMITS.callbackUrl) throw herald('overCeiling', { field: 'callbackUrl' });
  const problem = callbackUrlProblem(value, allowPrivate);
  if (problem) throw herald('invalidCallbackUrl', { reason: `${problem}: ${maskCallbackUrl(value)}` });
  return value;
}

function validateCallbackEvents(value: unknown): CallbackEvent[] | null {
  if (!present(value)) return null;
  // An empty list would silently turn callbacks off: leave the field out for the default instead.
  const ok =
    Array.isArray(value) && value.length > 0 && value.every(isCallbackEvent) && new Set(value).size === value.length;
  if (!ok) throw herald('invalidField', { field: 'callbackEvents', value: showValue(value) });
  return value as CallbackEvent[];
}

function validateExternalMessageId(value: unknown): string | null {
  if (!present(value)) return null;
  if (typeof value !== 'string' || value.length === 0 || charCount(value) > LIMITS.externalMessageId) {
    throw herald('invalidField', { field: 'externalMessageId', value: showValue(value) });
  }
  return value;
}
