import { herald } from '../errors/catalogue.js';
import { fromMicros, toMicros } from '../money/index.js';
import type { Money } from './route.js';

/**
 * An amount in another currency at the operator's rates (HERALD_EXCHANGE_RATES: `USD/RUB` is how many RUB one USD
 * buys; the inverse pair is implied), as decimal text with 6 places; undefined when no rate joins the two.
 */
export function convert(money: Money, to: string, rates: ReadonlyMap<string, number>): string | undefined {
  if (money.currency === to) return money.amount;
  const direct = rates.get(`${money.currency}/${to}`);
  const inverse = rates.get(`${to}/${money.currency}`);
  const rate = direct ?? (inverse === undefined ? undefined : 1 / inverse);
  if (rate === undefined) return undefined;
  return fromMicros(toMicros(Number(money.amount) * rate));
}

/** {@link convert}, refused (422) naming the pair when no rate joins it: resolve's and the margin report's answer. */
export function convertOrRefuse(money: Money, to: string, rates: ReadonlyMap<string, number>): string {
  const converted = convert(money, to, rates);
  if (converted === undefined)
    throw herald('unprocessable', {
      reason: `No exchange rate from ${money.currency} to ${to}: set HERALD_EXCHANGE_RATES`,
    });
  return converted;
}
