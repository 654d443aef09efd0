import { herald } from '../errors/catalogue.js';
import { charCount } from '../shared/text.js';
import type { OptOutSettingRow } from './optOutSettingSql.js';

/** The keywords of an account that set none (DESIGN 20). */
export const DEFAULT_KEYWORDS: readonly string[] = ['STOP', 'СТОП', 'ОТПИСКА', 'UNSUBSCRIBE'];

/** Bounds of the settings: a keyword is a word or two a subscriber types, not a sentence. */
export const OPT_OUT_LIMITS = {
  keywords: 20,
  keywordLength: 40,
  /** 160 characters: one SMS part in GSM-7, three in UCS-2, within every inbound channel's limits. */
  replyLength: 160,
} as const;

/**
 * A text as keywords are compared: trimmed, in Unicode compatibility form, case folded (upper then lower case, so
 * that `ß` meets `SS` and `ς` meets `Σ`).
 */
export function foldKeyword(text: string): string {
  return text.trim().normalize('NFKC').toUpperCase().toLowerCase();
}

/**
 * Whether a text is short enough to be a keyword: at most 4 times the longest keyword in UTF-16 units (room for the
 * whitespace around it and for characters NFKC folds into fewer). A longer one is not folded, nor its settings read.
 */
export function mayBeKeyword(text: string): boolean {
  return text.length <= OPT_OUT_LIMITS.keywordLength * 4;
}

/** The keyword a whole inbound text is, if it is one of `keywords`. */
export function matchKeyword(text: string, keywords: readonly string[]): string | undefined {
  if (!mayBeKeyword(text)) return undefined;
  const folded = foldKeyword(text);
  return keywords.find((keyword) => foldKeyword(keyword) === folded);
}

/** The settings as a client writes them, checked: keywords trimmed, without repeats (as compared); a reply or none. */
export function checkSettings(body: {
  keywords: readonly string[];
  reply?: string | null | undefined;
}): OptOutSettingRow {
  const keywords: string[] = [];
  const seen = new Set<string>();
  for (const written of body.keywords) {
    const keyword = written.trim();
    if (keyword === '' || charCount(keyword) > OPT_OUT_LIMITS.keywordLength)
      throw herald('invalidField', { field: 'keywords', value: JSON.stringify(written) });
    const folded = foldKeyword(keyword);
    if (seen.has(folded)) continue;
    seen.add(folded);
    keywords.push(keyword);
  }
  const reply = body.reply ?? null;
  if (reply !== null && (reply.trim() === '' || charCount(reply) > OPT_OUT_LIMITS.replyLength))
    throw herald('overCeiling', { field: 'reply' });
  return { keywords, reply };
}
