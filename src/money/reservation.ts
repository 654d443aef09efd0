import type { Queryable } from '../db/db.js';
import { balancesLock, ledgerAppend } from '../accounts/index.js';
import { fromMicros, type Micros, toMicros } from './amount.js';

export interface Charge {
  readonly amount: Micros;
  readonly currency: string;
}

/**
 * Reserves the prices of a batch's messages from the account's balance, in the caller's
 * transaction. Messages are taken in request order while the balance plus the credit limit lasts: the first that
 * does not fit, and every later one in that currency, is refused. The balance row is locked for the transaction,
 * so concurrent batches of one account queue here and never take it below minus the credit limit. One ledger
 * entry per currency records the batch. Returns which charges were taken. `exhausted`: the currencies a batch's
 * earlier slices ran out of (a batch of large rows is stored in several transactions); those that run out here are
 * added to it.
 */
export async function reserveCharges(
  tx: Queryable,
  accountId: number,
  charges: readonly (Charge | null)[],
  now: Date,
  reference: string,
  exhausted = new Set<string>(),
): Promise<boolean[]> {
  const currencies = [
    ...new Set(charges.filter((c): c is Charge => c !== null && c.amount > 0n).map((c) => c.currency)),
  ].sort();
  const available = new Map<string, Micros>();
  if (currencies.length > 0) {
    const rows = await balancesLock(tx, accountId, currencies, now);
    for (const row of rows) available.set(row.currency, toMicros(row.amount) + toMicros(row.credit_limit));
  }
  const spent = new Map<string, Micros>();
  const taken = charges.map((charge) => {
    if (charge === null || charge.amount === 0n) return true;
    if (exhausted.has(charge.currency)) return false;
    const left = available.get(charge.currency)! - (spent.get(charge.currency) ?? 0n);
    if (charge.amount > left) {
      exhausted.add(charge.currency);
      return false;
    }
    spent.set(charge.currency, (spent.get(charge.currency) ?? 0n) + charge.amount);
    return true;
  });
  for (const [currency, amount] of spent) {
    if (amount > 0n) {
      await ledgerAppend(tx, { accountId, currency, amount: fromMicros(-amount), kind: 'reserve', reference, now });
    }
  }
  return taken;
}
