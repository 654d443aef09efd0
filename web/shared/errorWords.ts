import errorWords from './errorWords.json' with { type: 'json' };
import { errorMessage, t } from './i18n/index.js';

/** An error for people: what happened, what to do, and the code it came with (shown smaller). */
export interface Explained {
  readonly text: string;
  readonly advice: string;
  readonly code: number | undefined;
}

interface ApiEntry {
  readonly name: string;
  readonly code: number;
  readonly template: string;
  readonly pattern: RegExp;
  /** The template's own characters: a template that says more is tried before one that says less. */
  readonly literal: number;
}

const API_ENTRIES: readonly ApiEntry[] = errorWords.api
  .map((e) => ({
    ...e,
    pattern: new RegExp(
      `^${e.template
        .split(/(\{\w+\})/)
        .map((part) => (/^\{\w+\}$/.test(part) ? `(?<${part.slice(1, -1)}>[\\s\\S]*?)` : escapeRegExp(part)))
        .join('')}$`,
    ),
    literal: e.template.replace(/\{\w+\}/g, '').length,
  }))
  .sort((a, b) => b.literal - a.literal);

const DELIVERY_CODES = new Map(errorWords.delivery.map((e) => [e.code, e.name]));

/** The codes Herald puts on messages (src/messages DELIVERY_ERRORS), in the catalogue's order. */
export const deliveryErrorCodes = (): readonly number[] => errorWords.delivery.map((e) => e.code);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * An API error (`{"code", "msg"}`) in words of the current language, with advice: the catalogue entry of that
 * code whose template the message fits, its placeholders filled from the message. A code the catalogue does not
 * have keeps the API's message.
 */
export function explainApiError(code: number | undefined, msg: string): Explained {
  if (code !== undefined) {
    for (const entry of API_ENTRIES) {
      if (entry.code !== code) continue;
      const match = entry.pattern.exec(msg);
      if (!match) continue;
      const values = { ...match.groups };
      // A bare reason (a dispatch item's 7401, a 4001) that is itself a catalogue message: that message's words.
      if (entry.template === '{reason}' && values.reason !== undefined) {
        const inner = explainReason(values.reason);
        if (inner) return { text: inner.text, advice: errorMessage(`error.api.${entry.name}.advice`, values), code };
      }
      return {
        text: errorMessage(`error.api.${entry.name}.text`, values),
        advice: errorMessage(`error.api.${entry.name}.advice`, values),
        code,
      };
    }
  }
  return { text: msg, advice: '', code };
}

/** The words of a reason that is a more precise 422 message of the catalogue, if it is one. */
function explainReason(reason: string): Explained | undefined {
  const entry = API_ENTRIES.find((e) => e.code === 4220 && e.template !== '{reason}' && e.pattern.test(reason));
  if (!entry) return undefined;
  const values = { ...entry.pattern.exec(reason)!.groups };
  return { text: errorMessage(`error.api.${entry.name}.text`, values), advice: '', code: entry.code };
}

/**
 * A message's `errorCode` in words: Herald's own codes (and API item codes a message may carry) from the
 * catalogues; any other is a carrier's code, passed through as it came.
 */
export function explainMessageError(code: number): Explained {
  const name = DELIVERY_CODES.get(code);
  if (name)
    return {
      text: errorMessage(`error.delivery.${name}.text`),
      advice: errorMessage(`error.delivery.${name}.advice`),
      code,
    };
  return { text: t('error.carrier.text'), advice: t('error.carrier.advice'), code };
}

/** One line for a status or a notice: "words (code). Advice." */
export function explainedLine(explained: Explained): string {
  const code = explained.code === undefined ? '' : ` (${explained.code})`;
  const advice = explained.advice ? ` ${explained.advice}` : '';
  const stop = /[.!?:]$/.test(explained.text) && !code ? '' : '.';
  return `${explained.text}${code}${advice ? `${stop}${advice}` : ''}`;
}
