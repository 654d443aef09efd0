import { ERRORS } from './catalogue.js';
import { ERROR_WORDS } from './errorWords.js';

/** Where each error appears, for the reference; item codes are answered inside a 200 send response. */
const ITEM_CODES = new Set([4020, 4021, 4031, 4221]);

/** Renders docs/errors.md from the catalogue. */
export function renderErrorsDoc(): string {
  const rows = Object.entries(ERRORS)
    .sort(([, a], [, b]) => a.code - b.code || a.msg.localeCompare(b.msg))
    .map(([name, e]) => {
      const words = ERROR_WORDS[name as keyof typeof ERRORS].en;
      const status = ITEM_CODES.has(e.code) ? `item (${e.status})` : e.status;
      return `| ${status} | ${e.code} | \`${e.msg}\` | ${words.text}. ${words.advice} | ${name} |`;
    });
  return [
    '# Error catalogue',
    '',
    'Generated from `src/errors/catalogue.ts` by `npm run docs:errors`; a test fails when the two differ.',
    '',
    'Every error body is `{"error": {"code": <int>, "msg": <string>}}`, sometimes with more fields (`index`: the',
    '0-based position of the offending message in a batch). `code` is the HTTP status x 10 + n. `{placeholders}` are',
    'filled with the actual values; values in `Invalid <field>: <value>` messages are shown as JSON. Codes marked',
    '"item" are not HTTP errors: they are the `code` of one item of a send response whose `errors` is `true`.',
    '',
    'The web pages show each error in words with what to do about it, in English and Russian',
    '(`src/errors/errorWords.json`; the English column below, `{placeholders}` filled from the message).',
    '',
    '| HTTP | code | msg | in words, and what to do | name in the catalogue |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
