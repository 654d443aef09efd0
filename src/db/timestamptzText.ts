/**
 * PostgreSQL's text of a timestamptz (`2026-11-30 07:50:24.123456+00`, the ISO DateStyle every connection uses) read
 * by position. The `pg` driver's parser (postgres-date) runs three regular expressions a value: 0.55-0.6 µs here,
 * against 0.2-0.25 (the SMPP server's receipts read two a message). Values of another shape (years before
 * 1000 or after 9999, BC, infinity, an offset in seconds) return undefined, for the driver's parser to read;
 * test/db/timestamptzText.test.ts holds the two to the same instants.
 */
export function timestamptzOf(text: string): Date | undefined {
  // YYYY-MM-DD hh:mm:ss, then .f to .ffffff, then +hh or +hh:mm.
  const n = text.length;
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32) return undefined;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  let o = 19;
  let ms = 0;
  if (text.charCodeAt(o) === 46) {
    const start = ++o;
    while (o < n && isDigit(text.charCodeAt(o))) o++;
    // Milliseconds are the first three digits (fewer padded); the rest is below a Date's precision.
    const count = o - start;
    if (count === 0 || count > 6) return undefined;
    for (let i = 0; i < 3; i++) ms = ms * 10 + (i < count ? text.charCodeAt(start + i) - 48 : 0);
  }
  const sign = text.charCodeAt(o);
  if (sign !== 43 && sign !== 45) return undefined;
  const offsetHours = digits(text, o + 1, 2);
  let offsetMinutes = 0;
  if (o + 3 === n) {
    // +hh
  } else if (o + 6 === n && text.charCodeAt(o + 3) === 58) {
    offsetMinutes = digits(text, o + 4, 2);
  } else {
    return undefined;
  }
  if (offsetHours < 0 || offsetMinutes < 0) return undefined;
  const offset = (sign === 43 ? 1 : -1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset);
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The number written by `count` digits at `at`, or -1 if one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    value = value * 10 + c - 48;
  }
  return value;
}
