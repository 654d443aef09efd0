import type { ErrorName } from './catalogue.js';
import words from './errorWords.json' with { type: 'json' };

/** What an error means for a person, and what to do about it, in one language. */
export interface ErrorWords {
  /** The error in words; `{placeholders}` of the catalogue's template (ICU syntax) are filled from the API's msg. */
  readonly text: string;
  /** What to do about it. */
  readonly advice: string;
}

/** An error's words in each language of the pages (DESIGN 11). */
export interface ErrorWordsByLanguage {
  readonly en: ErrorWords;
  readonly ru: ErrorWords;
}

/**
 * Every entry of the error catalogue (catalogue.ts) in words, in English and Russian, with advice: the table is
 * errorWords.json beside this file (ICU placeholders, filled from the API's message). The web pages show these
 * instead of a bare code (web/shared/errorWords.json is generated from it by `npm run web:errors`, and a test fails
 * while that is stale). Keyed by the catalogue's names: an entry added there fails typecheck until it has words.
 * Where the API's message already says it plainly, the English text is that message, so that a reader of the API
 * and of the pages see the same words.
 */
export const ERROR_WORDS: Readonly<Record<ErrorName, ErrorWordsByLanguage>> = words;
