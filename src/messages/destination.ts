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
  const mobile = (plan.numberingPlan as unknown as { type?(name: string): { pattern(): string; possibleLengths(): number[] } | undefined }).type?.('MOBILE');
  if (!mobile) return undefined;
  return { pattern: new RegExp(`^(?:${mobile.pattern()})$`), lengths: new Set(mobile.possibleLengths()) };
})();

function ruMobile(digits: string, plan: NonNullable<typeof RU_MOBILE>): Destination | undefined {
  const national = digits.slice(1);
  if (!plan.lengths.has(national.length) || !plan.pattern.test(national)) return undefined;
  return { msisdn: digits, country: 'RU' };
}

/**
 * Normalises a subscriber number (DESIGN section 4): spaces, dashes and brackets are stripped, a leading `+` is
 * optional, a Russian national `8XXXXXXXXXX` becomes `7XXXXXXXXXX`, and the result must be a valid number for its
 * country by libphonenumber's full metadata. `+7 916 123-45-67`, `89161234567` and `79161234567` are one number.
 * Returns undefined for anything else.
 */
export function normaliseDestination(value: unknown): Destination | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const stripped = value.replace(SEPARATORS, '');
  const match = /^(\+?)(\d{6,15})$/.exec(stripped);
  if (!match) return undefined;
  let digits = match[2]!;
  if (match[1] === '' && digits.length === 11 && digits.startsWith('8')) digits = `7${digits.slice(1)}`;
  if (RU_MOBILE && digits.startsWith('79')) return ruMobile(digits, RU_MOBILE);
  const phone = parsePhoneNumberFromString(`+${digits}`);
  if (!phone?.isValid()) return undefined;
  return { msisdn: phone.number.slice(1), country: phone.country };
}
