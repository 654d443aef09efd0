import { formatLocalTime } from '../util/time.js';
import { SMPP_TIME_TEXT } from './smppTimePatch.js';

/**
 * SMPP 3.4 times (7.1.1): absolute `YYMMDDhhmmsstnnp` (t tenths of a second, nn quarter hours from UTC, p `+` or `-`)
 * or relative `YYMMDDhhmmss000R`. Returns the instant, `undefined` for an empty field, `invalid` for anything else.
 */
export function smppTime(value: unknown, now: Date): Date | undefined | 'invalid' {
  // The package hands a Date that kept its text (smppTimePatch.ts), or the text when it could not decode it.
  const raw = value instanceof Date ? (value as unknown as Record<symbol, unknown>)[SMPP_TIME_TEXT] : value;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return undefined;
  const m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d)(\d{2})([+\-R])$/.exec(text);
  if (!m) return 'invalid';
  const [yy, mo, dd, hh, mi, ss, tenths, nn] = m.slice(1, 9).map(Number) as number[] as Fields;
  const p = m[9];
  if (p === 'R') {
    const seconds = (((yy * 365 + mo * 30 + dd) * 24 + hh) * 60 + mi) * 60 + ss;
    return new Date(now.getTime() + seconds * 1000);
  }
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59 || nn > 48) return 'invalid';
  const offsetMs = (p === '+' ? 1 : -1) * nn * 15 * 60_000;
  return new Date(Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss, tenths * 100) - offsetMs);
}

/** `YYYY-MM-DD hh:mm:ss` wall-clock time in Europe/Moscow (UTC+3, no DST since 2014): a message's localSendTime. */
export function moscowWallClock(at: Date): string {
  return formatLocalTime(at.getTime() + 3 * 3_600_000);
}

/** Year, month, day, hour, minute, second, tenths and quarter hours of an SMPP time. */
type Fields = [number, number, number, number, number, number, number, number];
