import { herald, showValue } from '../errors/catalogue.js';
import { DAY_MS } from '../util/time.js';

/** The longest range a statistics query reads. */
const MAX_RANGE_DAYS = 400;
/** The range when a query names none: the last 30 days. */
const DEFAULT_RANGE_DAYS = 30;

/**
 * The [from, to) of a statistics query (`from` and `to`: YYYY-MM-DD, UTC midnight, or ISO 8601), by default the 30
 * days before now; 422 4220 for a value that is not a time, a from not before to, or more than 400 days.
 */
export function statsRange(
  query: { from?: string | undefined; to?: string | undefined },
  now: Date,
): {
  from: Date;
  to: Date;
} {
  const to = query.to === undefined ? now : parseTime(query.to, 'to');
  const from =
    query.from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS) : parseTime(query.from, 'from');
  if (from >= to)
    throw herald('invalidField', { field: 'from', value: `${showValue(query.from)} (must be before to)` });
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw herald('invalidField', {
      field: 'to',
      value: `${showValue(query.to)} (at most ${MAX_RANGE_DAYS} days after from)`,
    });
  }
  return { from, to };
}

function parseTime(value: string, field: string): Date {
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw herald('invalidField', { field, value: showValue(value) });
  return new Date(ms);
}
