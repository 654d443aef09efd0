import { Metadata } from 'libphonenumber-js/core';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/metadata.max.json';

export interface Destination {
  /** E.164 digits without `+`, as stored: `79161234567`. */
  readonly msisdn: string;
  /** ISO 3166-1 alpha-2 country of the number, when libphonenumber knows it. */
  readonly country: string | undefined;
}

const SEPARATORS = /[\s\-()]/g;

/**
 * Russian mobile numbers (+7 9…) are most of the traffic. For them libphonenumber's verdict is its RU mobile
 * pattern (no other RU type and no other +7 country starts with 9), so that pattern is taken from the same
 * metadata and applied directly, without a full parse (a twentieth of the cost). The test compares both on
 * every 7-digit prefix.
 */
const RU_MOBILE = ((): { pattern: RegExp; lengths: Set<number> } | undefined => {
  // Metadata.type() is public in the library but missing from its type declarations; without it, parse fully.
  const plan = new Metadata(metadata);
  plan.selectNumberingPlan('RU');
  const mobile = (
    plan.numberingPlan as unknown as {
      type?(name: string): { pattern(): string; possibleLengths(): number[] } | undefined;
    }
  ).type?.('MOBILE');
  if (!mobile) return undefined;
  return { pattern: new RegExp(`^(?:${mobile.pattern()})$`), lengths: new Set(mobile.possibleLengths()) };
})();

/** Country calling codes (1 to 3 digits), the non-geographic ones (`800`, `882`, ...) included. */
const CALLING_CODES: ReadonlySet<string> = new Set([
  ...Object.keys(metadata.country_calling_codes),
  ...Object.keys(metadata.nonGeographic),
]);

function startsWithCallingCode(digits: string): boolean {
  return [1, 2, 3].some((length) => CALLING_CODES.has(digits.slice(0, length)));
}

/** The number `+<digits>` if valid; Russian mobiles by the RU pattern alone. */
function validNumber(digits: string): Destination | undefined {
  if (RU_MOBILE && digits.startsWith('79')) {
    const national = digits.slice(1);
    if (!RU_MOBILE.lengths.has(national.length) || !RU_MOBILE.pattern.test(national)) return undefined;
    return { msisdn: digits, country: 'RU' };
  }
  const phone = parsePhoneNumberFromString(`+${digits}`);
  if (!phone?.isValid()) return undefined;
  return { msisdn: phone.number.slice(1), country: phone.country };
}

/**
 * Normalises a subscriber number: spaces, dashes and brackets are stripped, a leading
 * `+` is optional, and the result must be a valid number for its country by libphonenumber's full metadata.
 * `+7 916 123-45-67`, `89161234567` and `79161234567` are one number. A Russian national `8XXXXXXXXXX` becomes
 * `7XXXXXXXXXX` only when it is not a valid number as written with a `+` and the result is a valid Russian number:
 * `84912345678` is a Vietnamese mobile, though `74912345678` is a Ryazan landline. Returns undefined for anything
 * else.
 */
export function normaliseDestination(value: unknown): Destination | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const stripped = value.replace(SEPARATORS, '');
  const match = /^(\+?)(\d{6,15})$/.exec(stripped);
  if (!match) return undefined;
  const digits = match[2]!;
  if (match[1] !== '' || digits.length !== 11 || digits[0] !== '8') return validNumber(digits);
  // No calling code starts with 89, so a Russian mobile `89...` goes straight to the Russian check, unparsed.
  const asWritten = startsWithCallingCode(digits) ? validNumber(digits) : undefined;
  if (asWritten) return asWritten;
  const russian = validNumber(`7${digits.slice(1)}`);
  return russian?.country === 'RU' ? russian : undefined;
}
