import { type ValidCascade, validateCascade } from '../cascades/index.js';
import { herald, showValue } from '../errors/catalogue.js';
import { normaliseDestination, validateMessage, type ValidationContext, type ValidMessage } from '../messages/index.js';
import { isPlainObject } from '../shared/text.js';
import type { DispatchCascade } from './dispatchSql.js';

/** `{name}`: letters, digits, underscore. */
const PLACEHOLDER = /\{([\p{L}\p{N}_]+)\}/gu;

/** One added entry: its destination (normalised) and how to fill its placeholders. */
function entryOf(item: unknown): { destination: string; fill: (text: string) => string } {
  if (!isPlainObject(item)) throw herald('notAnObject');
  for (const key of Object.keys(item))
    if (key !== 'destination' && key !== 'substitutions') throw herald('fieldNotAccepted', { field: key });
  const destination = normaliseDestination(item.destination);
  if (!destination) throw herald('invalidMsisdn');
  const values = item.substitutions ?? {};
  if (!isPlainObject(values) || Object.values(values).some((v) => typeof v !== 'string' && typeof v !== 'number'))
    throw herald('invalidField', { field: 'substitutions', value: showValue(values) });
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER, (_, name: string) => {
      if (!(name in values)) throw herald('missingField', { field: `substitution ${name}` });
      return String(values[name]);
    });
  return { destination: destination.msisdn, fill };
}

/** A content with its text filled: a string, or an object's `text`; other contents as they are. */
function filled(content: unknown, fill: (text: string) => string): unknown {
  if (typeof content === 'string') return fill(content);
  if (isPlainObject(content) && typeof content.text === 'string') return { ...content, text: fill(content.text) };
  return content;
}

/** The dispatch's message for one added entry: its destination, its content with the entry's substitutions. */
export function substitutedMessage(message: ValidMessage, item: unknown, validation: ValidationContext): ValidMessage {
  const { destination, fill } = entryOf(item);
  const m = message;
  // Validated again as a message: a substitution can make a text too long, or a FLASHCALL code no code.
  return validateMessage(
    {
      channelType: m.channelType,
      senderName: m.senderName,
      destination,
      content: filled(m.content, fill),
      tags: m.tags.length > 0 ? m.tags : undefined,
      trafficType: m.trafficType,
      ...(m.channelType === 'FLASHCALL' || m.channelType === 'VOICECODE'
        ? {}
        : {
            useLocalTime: m.useLocalTime,
            localSendTime: m.localSendTime,
            localCompletionTime: m.localCompletionTime,
            hours: m.hours,
            days: m.days,
            shortUrl: m.shortUrl,
          }),
      ttl: m.ttl,
      callbackUrl: m.callbackUrl,
      callbackEvents: m.callbackEvents,
      externalMessageId: m.externalMessageId,
    },
    validation,
  );
}

/**
 * The dispatch's cascade for one added entry: its destination, every step's text with the entry's substitutions,
 * validated again as a cascade (DESIGN 13).
 */
export function substitutedCascade(
  cascade: DispatchCascade,
  item: unknown,
  validation: ValidationContext,
): ValidCascade {
  const { destination, fill } = entryOf(item);
  return validateCascade(
    {
      ...cascade.fields,
      destination,
      cascade: cascade.steps.map((step) => ({ ...step, content: filled(step.content, fill) })),
    },
    validation,
  );
}
