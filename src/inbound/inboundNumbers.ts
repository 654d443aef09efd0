import { normaliseDestination } from '../numbering/index.js';

/** A short code (or a number libphonenumber does not know) is kept as its digits, as the SMSC writes it. */
const SHORT_CODE = /^[0-9]{1,20}$/;

/**
 * An inbound number as assigned and matched (DESIGN 4 and 17): a phone number normalised as destinations are
 * (`+7 916 124-00-01` and `89161240001` are `79161240001`), else a short code of digits as written. Undefined for
 * anything else (a `+` before something that is not a valid number, letters).
 */
export function normaliseInboundNumber(value: string): string | undefined {
  return normaliseDestination(value)?.msisdn ?? (SHORT_CODE.test(value) ? value : undefined);
}
