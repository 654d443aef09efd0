/**
 * JSON with integers beyond 2^53 kept exact, as providers whose ids are 64-bit integers (Devino's `providerId`,
 * `messageId`) write and read it: JSON.parse would round them to the nearest double, and JSON.stringify cannot write
 * a bigint. An integer literal that is not a safe integer is read as a bigint; a bigint is written as its digits.
 */

// A private-use character marks a big integer while it passes through JSON.parse/stringify as a string.
const MARK = '\uE000';

/** Parses JSON, reading integer literals beyond Number.MAX_SAFE_INTEGER as bigints; throws on malformed text. */
export function parseExact(text: string): unknown {
  let marked = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      marked += c;
      if (c === '\\') marked += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      marked += c;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const literal = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))?.[0] ?? c;
      const big = /^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal));
      marked += big ? `"${MARK}${literal}"` : literal;
      i += literal.length - 1;
    } else marked += c;
  }
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(1)) : value,
  );
}

/** JSON text of a value whose bigints are written as integer literals. */
export function stringifyExact(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v}` : v)).replace(
    new RegExp(`"${MARK}(-?\\d+)"`, 'g'),
    '$1',
  );
}

/** Whether a parsed value is an integer (safe number or bigint). */
export function isInteger(value: unknown): value is number | bigint {
  return typeof value === 'bigint' || Number.isInteger(value);
}
