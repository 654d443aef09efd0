/** A time for people: local date and time, or a dash. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** An amount with its currency, e.g. `12.5 RUB`. */
export function formatMoney(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  return `${amount.toLocaleString(undefined, { maximumFractionDigits: 6 })}${currency ? ` ${currency}` : ''}`;
}

/**
 * An amount of money with at least 2 decimals (up to 6, as prices per part have) and its currency, in the reader's
 * locale: `0.10 RUB`, `1,234.5678 RUB`.
 */
export function formatAmount(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  const text = amount.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 });
  return currency ? `${text} ${currency}` : text;
}

/** A balance object `{RUB: 10}` as `10 RUB`. */
export function formatBalance(balance: Record<string, number> | undefined): string {
  if (!balance) return '—';
  const entries = Object.entries(balance);
  return entries.length === 0 ? '0' : entries.map(([currency, amount]) => formatMoney(amount, currency)).join(', ');
}

/** The UTC day `YYYY-MM-DD` of a date (statistics count UTC days). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
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
