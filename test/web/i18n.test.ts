import { readFileSync } from 'node:fs';
import { createIntl } from '@formatjs/intl';
import { describe, expect, it } from 'vitest';
import { ERROR_WORDS_FILE, renderErrorWords } from '../../scripts/webErrorWords.js';
import { ERRORS } from '../../src/errors/catalogue.js';
import { ERROR_WORDS } from '../../src/errors/errorWords.js';
import { DELIVERY_ERROR_WORDS } from '../../src/messages/deliveryErrorWords.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import errorWords from '../../web/shared/errorWords.json' with { type: 'json' };
import { explainApiError, explainMessageError } from '../../web/shared/errorWords.js';
import { formatAmount, formatNumber } from '../../web/shared/format.js';
import { en } from '../../web/shared/i18n/en.js';
import { chooseLanguage, setLanguage } from '../../web/shared/i18n/index.js';
import { ru } from '../../web/shared/i18n/ru.js';

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)/g)].map((m) => m[1]!);

/** Formats every message of a catalogue with a value for each placeholder; returns the ICU errors met. */
function icuErrors(locale: string, messages: Record<string, string>): string[] {
  const errors: string[] = [];
  const intl = createIntl({ locale, messages, onError: (error) => errors.push(String(error)) });
  for (const [id, message] of Object.entries(messages))
    intl.formatMessage({ id }, Object.fromEntries(placeholders(message).map((name) => [name, 2])));
  return errors;
}

describe('the catalogues of the pages (DESIGN 11)', () => {
  it('have the same keys in Russian and English, none empty', () => {
    expect(Object.keys(ru).sort()).toEqual(Object.keys(en).sort());
    expect(Object.keys(errorWords.ru).sort()).toEqual(Object.keys(errorWords.en).sort());
    for (const [key, text] of [...Object.entries(en), ...Object.entries(ru)]) expect(text.trim(), key).not.toBe('');
  });

  it('use the same placeholders in both languages, and are valid ICU messages', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[])
      expect(new Set(placeholders(ru[key])), key).toEqual(new Set(placeholders(en[key])));
    expect(icuErrors('en-GB', { ...en, ...errorWords.en })).toEqual([]);
    expect(icuErrors('ru-RU', { ...ru, ...errorWords.ru })).toEqual([]);
  });

  it('give every error code of src/errors/catalogue.ts and every code on a message words and advice in both', () => {
    expect(Object.keys(ERROR_WORDS).sort()).toEqual(Object.keys(ERRORS).sort());
    expect(Object.keys(DELIVERY_ERROR_WORDS).sort()).toEqual(Object.keys(DELIVERY_ERRORS).sort());
    const entries = [
      ...Object.entries(ERROR_WORDS).map(([name, words]) => ({
        name,
        words,
        template: ERRORS[name as keyof typeof ERRORS].msg,
      })),
      ...Object.entries(DELIVERY_ERROR_WORDS).map(([name, words]) => ({ name, words, template: '' })),
    ];
    for (const { name, words, template } of entries)
      for (const language of ['en', 'ru'] as const) {
        expect(words[language].text.trim(), `${name} ${language}`).not.toBe('');
        expect(words[language].advice.trim(), `${name} ${language}`).not.toBe('');
        // Words can only fill what the API's message carries.
        for (const name of [...placeholders(words[language].text), ...placeholders(words[language].advice)])
          expect(placeholders(template), `${name} of ${template}`).toContain(name);
      }
  });

  it(`${ERROR_WORDS_FILE} is up to date with the error words (else: npm run web:errors)`, () => {
    expect(readFileSync(ERROR_WORDS_FILE, 'utf8') === renderErrorWords(), `${ERROR_WORDS_FILE} is stale`).toBe(true);
  });
});

describe('the language of a reader', () => {
  it('is the one they chose, else Russian when the browser prefers it to English, else English', () => {
    expect(chooseLanguage(null, ['ru-RU', 'en-US'])).toBe('ru');
    expect(chooseLanguage(null, ['de-DE', 'ru', 'en'])).toBe('ru');
    expect(chooseLanguage(null, ['en-US', 'ru-RU'])).toBe('en');
    expect(chooseLanguage(null, ['de-DE'])).toBe('en');
    expect(chooseLanguage(null, [])).toBe('en');
    expect(chooseLanguage('en', ['ru-RU'])).toBe('en');
    expect(chooseLanguage('ru', ['en-US'])).toBe('ru');
  });
});

describe('errors in words', () => {
  it('finds the catalogue entry a message fits, fills its placeholders, and keeps an unknown one as it came', () => {
    setLanguage('ru');
    expect(explainApiError(4220, 'Invalid msisdn')).toEqual({
      text: 'Номер получателя недействителен',
      advice: 'Укажите номер в международном формате, только цифры: 79161234567.',
      code: 4220,
    });
    expect(explainApiError(4220, 'No active sender name: (SMS, Foo)').text).toBe(
      'Нет активного имени отправителя Foo для SMS',
    );
    expect(explainApiError(4290, 'Too many requests; retry after 3 s').advice).toBe('Повторите через 3 с.');
    // A dispatch item's bare reason that is itself a catalogue message takes that message's words.
    expect(explainApiError(7401, 'Invalid msisdn')).toEqual({
      text: 'Номер получателя недействителен',
      advice: 'Исправьте эту строку файла и добавьте её снова.',
      code: 7401,
    });
    expect(explainMessageError(9005).text).toBe('Нет отчёта о доставке за время жизни');
    expect(explainMessageError(11)).toMatchObject({ text: 'Оператор связи не доставил сообщение', code: 11 });
    setLanguage('en');
    expect(explainApiError(4220, 'Invalid TTL 5')).toMatchObject({ text: 'Invalid TTL 5', code: 4220 });
    expect(explainApiError(4220, 'Invalid codeLength: 6 (a FLASHCALL step sends 4-digit codes)').text).toBe(
      'Invalid codeLength: 6 (a FLASHCALL step sends 4-digit codes)',
    );
    expect(explainApiError(4999, 'Something new')).toEqual({ text: 'Something new', advice: '', code: 4999 });
    expect(explainMessageError(9003)).toMatchObject({ text: 'Stopped by the client', code: 9003 });
  });
});

describe('numbers and money in the language shown', () => {
  it('formats them in Russian as Russian readers write them, and in English as before', () => {
    setLanguage('ru');
    expect(formatAmount(1000.5, 'RUB')).toMatch(/^1\s000,50\s₽$/);
    expect(formatNumber(1234567)).toMatch(/^1\s234\s567$/);
    setLanguage('en');
    expect(formatAmount(1000.5, 'RUB')).toBe('1,000.50 RUB');
    expect(formatNumber(1234567)).toBe('1,234,567');
  });
});
