import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { type ValidCascade, validateCascade } from '../cascades/index.js';
import { herald, type HeraldError } from '../errors/catalogue.js';
import { UNSUBSCRIBE_PLACEHOLDER } from '../links/index.js';
import { normaliseDestination } from '../numbering/index.js';
import { TEXT_BOUNDS, validateMessage, type ValidationContext } from '../sending/index.js';
import { type ValidMessage } from '../messages/index.js';
import { isChannel } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import type { DispatchCascade } from './dispatchSql.js';

/** `{name}`: letters, digits, underscore. */
const PLACEHOLDER = /\{([\p{L}\p{N}_]+)\}/gu;
const HAS_PLACEHOLDER = /\{[\p{L}\p{N}_]+\}/u;
/** The longest substitution value, in characters. */
export const SUBSTITUTION_MAX = 1000;

/**
 * One item of `POST /api/v1/dispatch/{id}/messages`, as documented and as enforced: an item that does not match gets
 * its 7401 (DESIGN 15: items answer one by one, in request order), not a 422 for the whole batch.
 */
export const AddItemSchema = Type.Object(
  {
    destination: Type.String({ maxLength: 100 }),
    substitutions: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String({ maxLength: SUBSTITUTION_MAX }), Type.Number()]), {
        description: 'a value for each {placeholder} of the content: a string of at most 1000 characters, or a number',
      }),
    ),
  },
  { additionalProperties: false },
);
const addItem = Compile(AddItemSchema);

type Values = Readonly<Record<string, string | number>>;

/** The item's destination (normalised) and its substitutions, or the first way it differs from AddItemSchema. */
function entryOf(item: unknown): { destination: string; values: Values } {
  if (!addItem.Check(item)) throw schemaProblem(item);
  const destination = normaliseDestination(item.destination);
  if (!destination) throw herald('invalidMsisdn');
  return { destination: destination.msisdn, values: item.substitutions ?? {} };
}

function schemaProblem(item: unknown): HeraldError {
  if (!isPlainObject(item)) return herald('notAnObject');
  const [first] = addItem.Errors(item);
  const extra = Object.keys(item).find((key) => key !== 'destination' && key !== 'substitutions');
  if (extra !== undefined) return herald('fieldNotAccepted', { field: extra });
  if (item.destination === undefined) return herald('missingField', { field: 'destination' });
  // The rule broken, not the value: a value refused for its length is long.
  const field = (first?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  return herald('invalidField', { field, value: first?.message ?? 'invalid' });
}

/**
 * A text with placeholders, read once per dispatch: its literal pieces around the placeholders, and how often each
 * name is used, so that an entry's substituted length is known from its values' lengths before anything is built.
 */
interface TextTemplate {
  /** The literal pieces, one more than the placeholders. */
  readonly pieces: readonly string[];
  /** The placeholders' names, in text order. */
  readonly names: readonly string[];
  /** Each name's uses, in order of first use. */
  readonly uses: ReadonlyMap<string, number>;
  readonly literalLength: number;
  /** The longest valid text of the content's channel. */
  readonly bound: (typeof TEXT_BOUNDS)[keyof typeof TEXT_BOUNDS];
}

function templateOf(text: string, channel: unknown): TextTemplate {
  const pieces: string[] = [];
  const names: string[] = [];
  const uses = new Map<string, number>();
  let from = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    // No substitution: generation makes it each message's own unsubscribe link (DESIGN 20).
    if (match[0] === UNSUBSCRIBE_PLACEHOLDER) continue;
    pieces.push(text.slice(from, match.index));
    names.push(match[1]!);
    uses.set(match[1]!, (uses.get(match[1]!) ?? 0) + 1);
    from = match.index + match[0].length;
  }
  pieces.push(text.slice(from));
  const literalLength = pieces.reduce((n, piece) => n + piece.length, 0);
  // A channel the dispatch's validation let through; SMS's bound, the largest, stands for any other.
  return { pieces, names, uses, literalLength, bound: TEXT_BOUNDS[isChannel(channel) ? channel : 'SMS'] };
}

/**
 * The template filled with `values`. A name without a value of the entry's own (not one every object inherits, such
 * as `constructor`) is a missing substitution. The length is summed from the pieces' and values' lengths first, in
 * time proportional to the template's names: a text longer than any valid one of its channel is refused unbuilt, so
 * that what is built is never more than the channel's maximum however many placeholders hold a long value.
 */
function fill(template: TextTemplate, values: Values): string {
  if (template.names.length === 0) return template.pieces[0]!;
  let length = template.literalLength;
  for (const [name, count] of template.uses) {
    if (!Object.hasOwn(values, name)) throw herald('missingField', { field: `substitution ${name}` });
    length += count * String(values[name]).length;
  }
  if (length > template.bound.units) throw herald('substitutedTooLong', { limit: template.bound.limit });
  let text = template.pieces[0]!;
  template.names.forEach((name, i) => {
    text += String(values[name]) + template.pieces[i + 1]!;
  });
  return text;
}

/** How a content is filled: a string, an object's `text`, or a TELEGRAM code; other contents stay as they are. */
function contentFiller(content: unknown, channel: unknown): (values: Values) => unknown {
  if (typeof content === 'string') {
    const template = templateOf(content, channel);
    return (values) => fill(template, values);
  }
  if (isPlainObject(content) && typeof content.text === 'string') {
    const template = templateOf(content.text, channel);
    return (values) => Object.assign({}, content, { text: fill(template, values) });
  }
  if (channel === 'TELEGRAM' && isPlainObject(content) && typeof content.code === 'string') {
    const template = templateOf(content.code, channel);
    return (values) => Object.assign({}, content, { code: fill(template, values) });
  }
  return () => content;
}

/**
 * The dispatch's message for each added entry: its destination, its content with the entry's substitutions, validated
 * again as a message (a substitution can make a text too long, or make a FLASHCALL code a code). The content is read
 * once, for all the entries of a call.
 */
export function messageSubstitution(
  message: ValidMessage,
  validation: ValidationContext,
): (item: unknown) => ValidMessage {
  const m = message;
  const content = contentFiller(m.content, m.channelType);
  return (item) => {
    const { destination, values } = entryOf(item);
    return validateMessage(
      {
        channelType: m.channelType,
        senderName: m.senderName,
        destination,
        content: content(values),
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
  };
}

/**
 * The dispatch's cascade for each added entry: its destination, every step's text with the entry's substitutions,
 * validated again as a cascade (DESIGN 13).
 */
export function cascadeSubstitution(
  cascade: DispatchCascade,
  validation: ValidationContext,
): (item: unknown) => ValidCascade {
  const contents = cascade.steps.map((step) => contentFiller(step.content, step.channelType));
  return (item) => {
    const { destination, values } = entryOf(item);
    return validateCascade(
      Object.assign({}, cascade.fields, {
        destination,
        cascade: cascade.steps.map((step, i) => Object.assign({}, step, { content: contents[i]!(values) })),
      }),
      validation,
    );
  };
}

/** A FLASHCALL or TELEGRAM code digits may fill: digits and placeholders only. */
const CODE_TEMPLATE = /^(?:\d|\{[\p{L}\p{N}_]+\})+$/u;
/** The most digits of its own a TELEGRAM code with placeholders may have: a code has 4 to 8. */
const TELEGRAM_CODE_MAX = 8;
/** What a code with placeholders stands for while the rest of its message is validated. */
const SOME_CODE = '0000';
const SOME_VOICECODE_TEXT = `Код авторизации от Herald: ${SOME_CODE}.`;

/**
 * The content a dispatch's message (or cascade step) is validated with at its creation. A FLASHCALL code, a
 * VOICECODE text or a TELEGRAM code with placeholders (`{code}`, `Код авторизации от {brand}: {code}.`,
 * `{"contentType": "code", "code": "{code}"}`) becomes a code only once substituted: a valid content of its channel
 * stands for it, and each message is validated in full after its substitution (7401 when it is not valid). A code
 * with a character that no value can make a digit, or with more digits of its own than a code has (FLASHCALL 4,
 * TELEGRAM 8), could never be one, and stays as it is, to be refused.
 */
export function contentToValidate(channel: unknown, content: unknown): unknown {
  const holds = (text: unknown): text is string => typeof text === 'string' && HAS_PLACEHOLDER.test(text);
  if (channel === 'FLASHCALL' && holds(content)) {
    const digits = content.replace(PLACEHOLDER, '');
    return CODE_TEMPLATE.test(content) && digits.length <= SOME_CODE.length ? SOME_CODE : content;
  }
  if (channel === 'TELEGRAM' && isPlainObject(content) && content.contentType === 'code' && holds(content.code)) {
    const digits = content.code.replace(PLACEHOLDER, '');
    const canBe = CODE_TEMPLATE.test(content.code) && digits.length <= TELEGRAM_CODE_MAX;
    return canBe ? Object.assign({}, content, { code: SOME_CODE }) : content;
  }
  if (channel === 'VOICECODE' && isPlainObject(content) && holds(content.text))
    return Object.assign({}, content, { text: SOME_VOICECODE_TEXT });
  return content;
}
