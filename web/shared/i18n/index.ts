import { createIntl, createIntlCache, type IntlShape } from '@formatjs/intl';
import errorWords from '../errorWords.json' with { type: 'json' };
import { en, type MessageKey, type Messages } from './en.js';
import { ru } from './ru.js';

/**
 * The languages of the pages (DESIGN 11): Russian and English, one catalogue each (en.ts, ru.ts; ICU messages,
 * formatted by FormatJS's @formatjs/intl, so that Russian plurals take one/few/many).
 */
export const LANGUAGES = ['ru', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

const CATALOGUES: Record<Language, Messages> = { en, ru };
/** Where the reader's choice is remembered, for both sites. */
export const LANGUAGE_KEY = 'herald.language';
/** The locale for numbers, money and dates of each language (Intl). */
const LOCALES: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };

/**
 * The language of a reader: the one they chose last (localStorage), else Russian when the browser prefers it to
 * English (the first of navigator.languages that is either), else English.
 */
export function chooseLanguage(stored: string | null, preferred: readonly string[]): Language {
  if (stored === 'ru' || stored === 'en') return stored;
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'ru' || primary === 'en') return primary;
  }
  return 'en';
}

/**
 * What this module reads of the browser, named so that it also loads in Node (test/web imports the pages' helpers,
 * which use the catalogue), where there is none of it.
 */
interface BrowserGlobals {
  readonly localStorage?: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  readonly navigator?: { readonly languages?: readonly string[] };
  readonly document?: { readonly documentElement: { lang: string } };
}
const browser = globalThis as BrowserGlobals;

function storedLanguage(): string | null {
  try {
    return browser.localStorage?.getItem(LANGUAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

const cache = createIntlCache();
// The error words (generated from src/errors, keys `error.*`) are messages of the same catalogue.
const makeIntl = (language: Language): IntlShape =>
  createIntl(
    {
      locale: LOCALES[language],
      messages: { ...CATALOGUES[language], ...errorWords[language] },
      defaultLocale: 'en-GB',
    },
    cache,
  );

let language: Language = chooseLanguage(storedLanguage(), browser.navigator?.languages ?? []);
let intl = makeIntl(language);
const listeners = new Set<(next: Language) => void>();

/** Calls `listener` after each change of language; returns the function that stops it. */
export function onLanguage(listener: (next: Language) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The language the pages are shown in now. */
export const currentLanguage = (): Language => language;
/**
 * The Intl locale of the current language, for format.ts: `ru-RU`, or the browser's own English (`en-US`, `en-GB`)
 * when it has one, else `en-GB`.
 */
export const currentLocale = (): string =>
  language === 'en' ? (browser.navigator?.languages?.find((tag) => /^en\b/i.test(tag)) ?? LOCALES.en) : LOCALES.ru;

export type Values = Record<string, string | number | Date>;

/** A message of the current language's catalogue, its `{placeholders}` (ICU plurals too) filled from `values`. */
export function t(id: MessageKey, values?: Values): string {
  return intl.formatMessage({ id }, values && identifiersAsText(values));
}

/** Placeholders that name a thing rather than count: "Route 1234", "code 4220", never "Route 1 234". */
const IDENTIFIERS = new Set(['id', 'other', 'account', 'code', 'codes', 'step', 'gateway', 'uuid', 'number', 'name']);

function identifiersAsText(values: Values): Values {
  const out: Values = {};
  for (const [key, value] of Object.entries(values))
    out[key] = typeof value === 'number' && IDENTIFIERS.has(key) ? String(value) : value;
  return out;
}

/** Whether the catalogue has `id` (for keys built from an API's enum, e.g. `status.<value>`). */
export function hasMessage(id: string): id is MessageKey {
  return Object.hasOwn(CATALOGUES[language], id);
}

/** A generated error word (`error.api.<name>.text`, web/shared/errorWords.json) in the current language. */
export function errorMessage(id: string, values?: Values): string {
  return intl.formatMessage({ id }, values);
}

/** Shows the pages in `next`, remembers it, and sets `<html lang>`. */
export function setLanguage(next: Language): void {
  language = next;
  intl = makeIntl(next);
  try {
    browser.localStorage?.setItem(LANGUAGE_KEY, next);
  } catch {
    // A browser that refuses storage still switches, for this page.
  }
  applyLanguage();
  for (const listener of listeners) listener(next);
}

/** Sets `<html lang>` to the language shown; main.tsx calls it before the first render. */
export function applyLanguage(): void {
  if (browser.document) browser.document.documentElement.lang = language;
}

/** Groups of the API's codes that the catalogues put in words: `status.delivered`, `channel.VK`, ... */
export type CodeGroup =
  | 'status'
  | 'channel'
  | 'traffic'
  | 'senderStatus'
  | 'templateStatus'
  | 'templateType'
  | 'dispatchState'
  | 'cascadeState'
  | 'cascadeCondition'
  | 'callbackState'
  | 'accountStatus'
  | 'holdState'
  | 'holdKind'
  | 'connectorState'
  | 'queueState'
  | 'ledgerKind'
  | 'keyType'
  | 'side'
  | 'stopSource'
  | 'strategy';

/** An API code in words of the current language (`codeWord('status', 'undelivered')`), or as it is if unknown. */
export function codeWord(group: CodeGroup, value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const id = `${group}.${value}`;
  return hasMessage(id) ? t(id) : value;
}

/** Several messages without placeholders at once, e.g. a table's column headers. */
export const texts = (...ids: MessageKey[]): string[] => ids.map((id) => t(id));

/** API codes as a select's options in words, after an optional "any" option (value ''). */
export function codeOptions<V extends string>(group: CodeGroup, values: readonly V[]): { value: V; label: string }[];
export function codeOptions<V extends string>(
  group: CodeGroup,
  values: readonly V[],
  any: MessageKey,
): { value: V | ''; label: string }[];
export function codeOptions<V extends string>(group: CodeGroup, values: readonly V[], any?: MessageKey) {
  const options = values.map((value) => ({ value, label: codeWord(group, value) }));
  return any ? [{ value: '' as const, label: t(any) }, ...options] : options;
}
