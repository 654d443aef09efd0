/** How a receipt's id is written relative to the submit_sm_resp id (the `receiptIds` option, DESIGN 17). */
export type ReceiptIdForm = 'as-is' | 'hex' | 'decimal';

/**
 * The one form in which Herald records and matches an SMSC's message ids: lower case, without leading zeros, and, when
 * the two sides are written in different bases, as hexadecimal. SMSCs differ here: one answers `submit_sm_resp`
 * with `0A1B` and reports `a1b`; another answers `2587` (decimal) and reports `a1b` (hex, `receiptIds: hex`);
 * Kannel's `msg-id-type` describes the same choice. An id that is not a number in its base is kept as written,
 * lower-cased.
 */
export function submittedId(id: string, form: ReceiptIdForm): string {
  // receiptIds: hex means the receipt is hexadecimal while submit_sm_resp is decimal, and the other way round.
  return canonical(id, form === 'hex' ? 10 : 16);
}

/** A receipt's id in the form of {@link submittedId}. */
export function receiptId(id: string, form: ReceiptIdForm): string {
  return canonical(id, form === 'decimal' ? 10 : 16);
}

function canonical(id: string, base: 10 | 16): string {
  const written = id.trim().toLowerCase();
  const digits = base === 10 ? /^[0-9]+$/ : /^(0x)?[0-9a-f]+$/;
  if (!digits.test(written)) return written;
  const value = BigInt(base === 10 ? written : `0x${written.replace(/^0x/, '')}`);
  return value.toString(16);
}

/**
 * A receipt's `err:` field: SMSCs write it in decimal (`err:011`) or in hexadecimal (`err:00B`, `err:0x0b`). A value
 * with a `0x` prefix or a hex letter is read as hexadecimal, any other as decimal; 0 is no error.
 */
export function receiptError(err: string | undefined): number | null {
  if (err === undefined) return null;
  const written = err.trim().toLowerCase();
  let value: number;
  if (/^0x[0-9a-f]+$/.test(written) || /^[0-9a-f]*[a-f][0-9a-f]*$/.test(written)) {
    value = Number.parseInt(written.replace(/^0x/, ''), 16);
  } else if (/^[0-9]+$/.test(written)) {
    value = Number.parseInt(written, 10);
  } else {
    return null;
  }
  return value === 0 ? null : value;
}
