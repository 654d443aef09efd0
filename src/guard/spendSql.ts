import type { Queryable } from '../db/db.js';

/**
 * What the account's accepted messages cost on `day` (YYYY-MM-DD in its zone), per currency (decimal strings), with
 * the day's rows locked until the transaction ends (made at 0 when missing): batches of one account that count
 * against the limit take turns from here, so that two of them never both pass its last free place. One statement,
 * in currency order.
 */
export async function spendOfDayLocked(
  tx: Queryable,
  accountId: number,
  day: string,
  currencies: readonly string[],
): Promise<Map<string, string>> {
  const rows = await tx.query<{ currency: string; amount: string }>(
    `INSERT INTO daily_spend AS s (account_id, currency, day, amount)
     SELECT $1, currency, $2, 0 FROM unnest($3::text[]) AS c (currency)
     ON CONFLICT (account_id, currency, day) DO UPDATE SET amount = s.amount
     RETURNING s.currency, s.amount::text AS amount`,
    [accountId, day, [...currencies].sort()],
  );
  return new Map(rows.map((r) => [r.currency, r.amount]));
}

/** Adds the amounts (decimal strings) to the day's spend: one statement. */
export async function spendAdd(
  db: Queryable,
  accountId: number,
  day: string,
  amounts: ReadonlyMap<string, string>,
): Promise<void> {
  if (amounts.size === 0) return;
  await db.query(
    `INSERT INTO daily_spend (account_id, currency, day, amount)
     SELECT $1, currency, $2, amount FROM unnest($3::text[], $4::numeric[]) AS s (currency, amount)
     ON CONFLICT (account_id, currency, day) DO UPDATE SET amount = daily_spend.amount + EXCLUDED.amount`,
    [accountId, day, [...amounts.keys()], [...amounts.values()]],
  );
}

/** Forgets the days before `day`. */
export async function spendForget(db: Queryable, day: string): Promise<number> {
  const rows = await db.query('DELETE FROM daily_spend WHERE day < $1 RETURNING 1', [day]);
  return rows.length;
}
