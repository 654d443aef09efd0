import type { Queryable } from '../db/db.js';

/**
 * Takes an account's next send slots at its maxRate: `urgent` AUTHORIZE and TRANSACT messages go at once and take
 * the first slots, the `bulk` ones are due one slot apart after them (the account's backlog moves back by the
 * urgent ones), at least `minSpacingMs` apart (a dispatch slower than the account's rate). Returns when the first bulk
 * message may be due and their spacing in milliseconds, or undefined for an account without a maxRate. Locks the
 * account's row (after its balances, in the sending transaction).
 */
export async function accountTakePace(
  tx: Queryable,
  accountId: number,
  urgent: number,
  bulk: number,
  now: Date,
  minSpacingMs = 0,
): Promise<{ firstBulkAt: Date; spacingMs: number } | undefined> {
  const [row] = await tx.query<{ start: Date; max_rate: number }>(
    `WITH old AS (
       SELECT greatest(coalesce(pace_next, $2), $2) AS start, max_rate FROM accounts
       WHERE id = $1 AND max_rate IS NOT NULL
       FOR UPDATE
     )
     UPDATE accounts a SET pace_next = old.start
       + make_interval(secs => $3 / old.max_rate + $4 * greatest(1 / old.max_rate, $5::float8 / 1000))
     FROM old WHERE a.id = $1
     RETURNING old.start, old.max_rate`,
    [accountId, now, urgent, bulk, minSpacingMs],
  );
  if (!row) return undefined;
  const slotMs = 1000 / row.max_rate;
  return { firstBulkAt: new Date(row.start.getTime() + urgent * slotMs), spacingMs: Math.max(slotMs, minSpacingMs) };
}
