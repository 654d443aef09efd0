import type { Queryable } from '../db/db.js';

/** What the account's accepted messages cost on `day` (YYYY-MM-DD in its zone), per currency (decimal strings). */
export async function spendOfDay(
  db: Queryable,
  accountId: number,
  day: string,
  currencies: readonly string[],
): Promise<Map<string, string>> {
  const rows = await db.query<{ currency: string; amount: string }>(
    `SELECT currency, amount::text AS amount FROM daily_spend
     WHERE account_id = $1 AND day = $2 AND currency = ANY($3)`,
    [accountId, day, currencies],
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
