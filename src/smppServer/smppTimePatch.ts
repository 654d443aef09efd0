import smpp from 'smpp';
import { replacing } from '../util/replaced.js';

/** Where a decoded SMPP time keeps the text it was read from (see below). */
export const SMPP_TIME_TEXT = Symbol('smppTimeText');

/**
 * The `smpp` package decodes validity_period and schedule_delivery_time into a Date, a relative time (`...R`) from the
 * system clock at decoding. Herald reads them on its own clock (a test's moves), so the decoded Date also keeps the
 * text it came from; the package's Date is left as it is for its other users (the SMSC simulator). Imported for this
 * effect by the SMPP server.
 */
const time = smpp.filters.time;
time.decode = replacing(
  time.decode,
  (decode) =>
    function (this: unknown, value: unknown): unknown {
      const decoded = decode.call(this, value);
      if (decoded instanceof Date && typeof value === 'string') {
        Object.defineProperty(decoded, SMPP_TIME_TEXT, { value, enumerable: false });
      }
      return decoded;
    },
);
