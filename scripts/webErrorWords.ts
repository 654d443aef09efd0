/**
 * Writes web/shared/errorWords.json: every API error of src/errors/catalogue.ts and every code Herald puts on a
 * message (src/messages/statuses.ts DELIVERY_ERRORS), with their words and advice in English and Russian
 * (src/errors/errorWords.ts, src/messages/deliveryErrorWords.ts), for the pages (web/shared/errorWords.ts).
 * `npm run web:errors` after changing any of them; test/web/errorWords.test.ts fails while the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ERRORS } from '../src/errors/catalogue.js';
import { ERROR_WORDS, type ErrorWordsByLanguage } from '../src/errors/errorWords.js';
import { DELIVERY_ERROR_WORDS } from '../src/messages/deliveryErrorWords.js';
import { DELIVERY_ERRORS } from '../src/messages/statuses.js';

export const ERROR_WORDS_FILE = 'web/shared/errorWords.json';

/** The file's text: entries in catalogue order, then one flat message table per language (keys `error.*`). */
export function renderErrorWords(): string {
  const en: Record<string, string> = {};
  const ru: Record<string, string> = {};
  const words = (key: string, entry: ErrorWordsByLanguage) => {
    en[`${key}.text`] = entry.en.text;
    en[`${key}.advice`] = entry.en.advice;
    ru[`${key}.text`] = entry.ru.text;
    ru[`${key}.advice`] = entry.ru.advice;
  };
  const api = Object.entries(ERRORS).map(([name, e]) => {
    words(`error.api.${name}`, ERROR_WORDS[name as keyof typeof ERRORS]);
    return { name, code: e.code, template: e.msg };
  });
  const delivery = Object.entries(DELIVERY_ERRORS).map(([name, code]) => {
    words(`error.delivery.${name}`, DELIVERY_ERROR_WORDS[name as keyof typeof DELIVERY_ERRORS]);
    return { name, code };
  });
  return `${JSON.stringify({ generatedBy: 'npm run web:errors', api, delivery, en, ru }, null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) writeFileSync(ERROR_WORDS_FILE, renderErrorWords());
