import { currentLanguage, currentLocale } from './i18n/index.js';

/** A time for people: local date and time in the language's locale (`29.11.2026, 09:00:00`), or a dash. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(currentLocale());
}

/** A number in the language's locale: `1 000,5` in Russian, `1,000.5` in English. */
export function formatNumber(value: number | null | undefined, options?: Intl.NumberFormatOptions): string {
  if (value === null || value === undefined) return '—';
  return value.toLocaleString(currentLocale(), options);
}

/**
 * Money in the language's locale: in Russian the currency's sign after the amount (`1 000,50 ₽`, Intl's currency
 * style), in English the amount and the code (`1,000.5 RUB`).
 */
function money(amount: number, currency: string | null | undefined, minimumFractionDigits: number): string {
  const digits = { minimumFractionDigits, maximumFractionDigits: 6 };
  if (currency && currentLanguage() === 'ru') {
    try {
      return amount.toLocaleString(currentLocale(), { ...digits, style: 'currency', currency });
    } catch {
      // Not an ISO 4217 code Intl takes: the number and the code as they are, below.
    }
  }
  const text = amount.toLocaleString(currentLocale(), digits);
  return currency ? `${text} ${currency}` : text;
}

/** An amount with its currency, e.g. `12.5 RUB`, `12,5 ₽`. */
export function formatMoney(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  return money(amount, currency, 0);
}

/**
 * An amount of money with at least 2 decimals (up to 6, as prices per part have) and its currency, in the reader's
 * locale: `0.10 RUB`, `1,234.5678 RUB`; `1 000,50 ₽` in Russian.
 */
export function formatAmount(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  return money(amount, currency, 2);
}

/** A balance object `{RUB: 10}` as `10 RUB`. */
export function formatBalance(balance: Record<string, number> | undefined): string {
  if (!balance) return '—';
  const entries = Object.entries(balance);
  return entries.length === 0 ? '0' : entries.map(([currency, amount]) => formatMoney(amount, currency)).join(', ');
}

/** A UTC day `YYYY-MM-DD` (of the statistics) as the reader's locale writes a date: `29.11.2026`; else as it is. */
export function formatUtcDay(day: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  return Number.isNaN(ms) ? day : new Date(ms).toLocaleDateString(currentLocale(), { timeZone: 'UTC' });
}

/** The UTC day `YYYY-MM-DD` of a date (statistics count UTC days). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The reader's day (the browser's time zone, as every time the pages show) of a date: `YYYY-MM-DD`, the value of a
 * date input.
 */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The first instant of a reader's day `YYYY-MM-DD` (local midnight), or undefined for another value. */
export function localDayStart(day: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The last millisecond of a reader's day `YYYY-MM-DD`, or undefined for another value. */
export function localDayEnd(day: string): Date | undefined {
  const start = localDayStart(day);
  if (!start) return undefined;
  return new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1, 0, 0, 0, -1);
}

/** A date-time-local input's value as ISO 8601 UTC, or undefined when empty. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Text of a message content (a string, or an object with `text`). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (
    content &&
    typeof content === 'object' &&
    'text' in content &&
    typeof (content as { text: unknown }).text === 'string'
  )
    return (content as { text: string }).text;
  return JSON.stringify(content);
}

export const CHANNELS = ['SMS', 'FLASHCALL', 'VOICECODE', 'VIBER', 'WHATSAPP', 'VK', 'TELEGRAM'] as const;
export type Channel = (typeof CHANNELS)[number];
/** A message's status: its delivery outcome. Whether a delivered message was read is its read status, apart. */
export const MESSAGE_STATUSES = ['sending', 'sent', 'delivered', 'undelivered', 'unsent', 'inbound_sent'] as const;
export const READ_STATUSES = ['read', 'unread'] as const;
