/** Money as integer millionths (numeric(20, 6) in the database), so that sums and comparisons are exact. */
export type Micros = bigint;

const SCALE = 1_000_000n;

/** Parses a decimal string or number (at most 6 decimals are kept, rounded half up) into micros. */
export function toMicros(value: string | number): Micros {
  const text = typeof value === 'number' ? value.toFixed(6) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not an amount: ${value}`);
  const [, sign, whole, fraction = ''] = match;
  const digits = `${fraction}0000000`.slice(0, 7);
  let micros = BigInt(whole!) * SCALE + BigInt(digits.slice(0, 6));
  if (Number(digits[6]) >= 5) micros += 1n;
  return sign === '-' ? -micros : micros;
}

/** Micros as a decimal string with 6 places, as numeric(20, 6) takes it. */
export function fromMicros(micros: Micros): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const text = `${abs / SCALE}.${String(abs % SCALE).padStart(6, '0')}`;
  return negative ? `-${text}` : text;
}
