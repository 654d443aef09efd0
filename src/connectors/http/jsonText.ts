/**
 * JSON as providers write it, read and written without losing digits: some give 64-bit message ids as bare numbers
 * (Devino's `3158611117333282816`), which a plain JSON.parse rounds to another id.
 */

/** Integers longer than this may not survive a double (2^53 has 16 digits): they are read as strings. */
const SAFE_DIGITS = 15;

/** JSON.parse, with integers too long for a double read as their digits (a string). */
export function parseExact(text: string): unknown {
  return JSON.parse(quoteLongIntegers(text));
}

function quoteLongIntegers(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if ((c >= 48 && c <= 57) || c === 45 /* - */) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end++;
      const token = text.slice(i, end);
      if (/^-?\d+$/.test(token) && token.replace('-', '').length > SAFE_DIGITS) {
        out += `${text.slice(from, i)}"${token}"`;
        from = end;
      }
      i = end - 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A marker no text contains, for the long integers {@link jsonText} writes as bare numbers. */
const LONG = `\u0000long${process.pid}:`;

/** An integer that must be written as a bare JSON number, however long (a provider's 64-bit id). */
export class LongInteger {
  constructor(readonly digits: string) {}
  toJSON(): string {
    return LONG + this.digits;
  }
}

/** JSON.stringify, with {@link LongInteger}s written as bare numbers. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000long') ? text.replace(/"\\u0000long\d+:(-?\d+)"/g, '$1') : text;
}

/** A form (application/x-www-form-urlencoded) of an object's fields; an array's items are repeated fields. */
export function formBody(value: unknown): string {
  const form = new URLSearchParams();
  if (typeof value === 'object' && value !== null)
    for (const [name, field] of Object.entries(value)) {
      for (const item of Array.isArray(field) ? field : [field]) {
        if (item === undefined || item === null) continue;
        form.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
      }
    }
  return form.toString();
}
