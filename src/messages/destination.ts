import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

export interface Destination {
  /** E.164 digits without `+`, as stored: `79161234567`. */
  readonly msisdn: string;
  /** ISO 3166-1 alpha-2 country of the number, when libphonenumber knows it. */
  readonly country: string | undefined;
}

const SEPARATORS = /[\s\-()]/g;

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
  const phone = parsePhoneNumberFromString(`+${digits}`);
  if (!phone?.isValid()) return undefined;
  return { msisdn: phone.number.slice(1), country: phone.country };
}
