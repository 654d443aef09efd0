/**
 * Amounts of money as people type them, read by the rules of the reader's language (docs/web.md, "Money forms"):
 * Russian writes `1 000,50`, English `1,000.50`. A separator that can only be a decimal point is one ("1000,50" is
 * 1000.50 in both languages: a group has three digits), a group separator is taken only where groups of three
 * digits make it one, and what could be read both ways ("1.000" in Russian: one or a thousand?) is refused: a
 * money field never guesses by a factor of 1000.
 */

import { formatNumber } from './format.js';
import { currentLanguage, t } from './i18n/index.js';

export type AmountProblem = 'empty' | 'invalid' | 'ambiguous' | 'decimals' | 'negative' | 'zero' | 'tooLarge';

export type AmountReading =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly problem: AmountProblem };

export interface AmountRules {
  /** The reader's language: which of `,` and `.` is its decimal separator. */
  readonly language: 'ru' | 'en';
  /** At most this many decimals (the API keeps six). */
  readonly maxDecimals?: number;
  /** A negative amount is allowed (a debit); else refused. */
  readonly negative?: boolean;
  /** Zero is allowed; else refused. */
  readonly zero?: boolean;
  /** The largest magnitude accepted (the API's bounds). */
  readonly max?: number;
}

/** Space-like group separators: space, no-break space, narrow no-break space (Intl's Russian grouping), apostrophe. */
const SPACES = /[ \u00a0\u202f']/g;
const GROUPED = /^[1-9]\d{0,2}(?:[.,]\d{3})+$/;

/** Reads `text` as an amount by `rules`, or says what is wrong with it. */
export function parseAmount(text: string, rules: AmountRules): AmountReading {
  const { language, maxDecimals = 6, negative = false, zero = false, max = 1e12 } = rules;
  let s = text.trim();
  if (s === '') return { ok: false, problem: 'empty' };
  let sign = 1;
  if (/^[-\u2212]/.test(s)) {
    sign = -1;
    s = s.slice(1).trim();
  } else if (s.startsWith('+')) s = s.slice(1).trim();
  // Spaces group digits in every language; between groups of three only.
  if (/\s|\u00a0|\u202f|'/.test(s)) {
    if (!/^[1-9]\d{0,2}(?:[ \u00a0\u202f']\d{3})+(?:[.,]\d+)?$/.test(s)) return { ok: false, problem: 'invalid' };
    s = s.replace(SPACES, '');
  }
  if (!/^\d[\d.,]*$/.test(s) || /[.,]$/.test(s)) return { ok: false, problem: 'invalid' };
  const decimal = language === 'ru' ? ',' : '.';
  const group = language === 'ru' ? '.' : ',';
  const commas = s.split(',').length - 1;
  const dots = s.split('.').length - 1;
  let whole = s;
  let fraction = '';
  if (commas > 0 && dots > 0) {
    // Both: the last one is the decimal separator and the other groups the whole part in threes.
    const point = Math.max(s.lastIndexOf(','), s.lastIndexOf('.'));
    const other = s[point] === ',' ? '.' : ',';
    whole = s.slice(0, point);
    fraction = s.slice(point + 1);
    if (!new RegExp(`^[1-9]\\d{0,2}(?:\\${other}\\d{3})+$`).test(whole)) return { ok: false, problem: 'invalid' };
    whole = whole.split(other).join('');
  } else if (commas + dots === 1) {
    const mark = commas === 1 ? ',' : '.';
    const [before, after] = s.split(mark) as [string, string];
    if (mark === decimal || after.length !== 3 || before.startsWith('0')) {
      // The language's decimal separator, or the other one where it cannot group (not three digits after it, or
      // after a 0: "0,125" is no thousands).
      whole = before;
      fraction = after;
    } else if (mark === group && before.length <= 3 && language === 'en') {
      // "1,000" in English: a thousand, as English writes it.
      whole = before + after;
    } else {
      // "1.000" in Russian: a thousand or one? Refused, rather than guessed.
      return { ok: false, problem: 'ambiguous' };
    }
  } else if (commas + dots > 1) {
    // One separator several times: groups of three only ("1.000.000", "1,000,000").
    if (!GROUPED.test(s) || (commas > 0 ? ',' : '.') === decimal) return { ok: false, problem: 'invalid' };
    whole = s.replace(/[.,]/g, '');
  }
  if (!/^\d+$/.test(whole) || !/^\d*$/.test(fraction)) return { ok: false, problem: 'invalid' };
  if (fraction.length > maxDecimals) return { ok: false, problem: 'decimals' };
  const value = sign * Number(`${whole}.${fraction || '0'}`);
  if (!Number.isFinite(value) || Math.abs(value) > max) return { ok: false, problem: 'tooLarge' };
  if (value < 0 && !negative) return { ok: false, problem: 'negative' };
  if (value === 0 && !zero) return { ok: false, problem: 'zero' };
  return { ok: true, value: value === 0 ? 0 : value };
}

/** The rules of a field: the language is the reader's. */
export type AmountFieldRules = Omit<AmountRules, 'language'>;

/** An amount in the reader's locale for the words of a field (`1 000,50`, `-1,000.50`). */
export const amountExample = (rules: AmountFieldRules): string =>
  formatNumber(rules.negative ? -1000.5 : 1000.5, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** What is wrong with an amount, in words of the reader's language. */
export function amountProblemText(problem: AmountProblem, rules: AmountFieldRules): string {
  switch (problem) {
    case 'decimals':
      return t('amount.decimals', { max: rules.maxDecimals ?? 6 });
    case 'invalid':
    case 'ambiguous':
      return t(`amount.${problem}`, { example: amountExample(rules) });
    default:
      return t(`amount.${problem}`);
  }
}

/** Reads `text` in the reader's language: the amount, or what is wrong with it in words. */
export function readAmount(text: string, rules: AmountFieldRules): { value: number } | { error: string } {
  const reading = parseAmount(text, { ...rules, language: currentLanguage() });
  return reading.ok ? { value: reading.value } : { error: amountProblemText(reading.problem, rules) };
}
