import type { Queryable } from '../db/db.js';

export interface InboundNumberRow {
  readonly channel_type: string;
  readonly number: string;
  readonly account_id: number;
  readonly created_at: Date;
}

/**
 * Assigns a number to an account; returns the row, or the owner's row when another account has it (one owner per
 * number). Assigning a number to its owner again changes nothing.
 */
export async function inboundNumberAssign(
  db: Queryable,
  n: { channelType: string; number: string; accountId: number; at: Date },
): Promise<InboundNumberRow> {
  const [row] = await db.query<InboundNumberRow>(
    `WITH inserted AS (
       INSERT INTO inbound_numbers (channel_type, number, account_id, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING
       RETURNING channel_type, number, account_id, created_at
     )
     SELECT * FROM inserted
     UNION ALL
     SELECT channel_type, number, account_id, created_at FROM inbound_numbers
     WHERE channel_type = $1 AND number = $2 AND NOT EXISTS (SELECT 1 FROM inserted)`,
    [n.channelType, n.number, n.accountId, n.at],
  );
  return row!;
}

/**
 * The owner of the first of `numbers` (in the order given) that an account has, with that number as assigned; the
 * receiver tries the number as normalised, then as the SMSC wrote it.
 */
export async function inboundNumberOwner(
  db: Queryable,
  channelType: string,
  numbers: readonly string[],
): Promise<{ accountId: number; number: string } | undefined> {
  const [row] = await db.query<{ account_id: number; number: string }>(
    `SELECT account_id, number FROM inbound_numbers WHERE channel_type = $1 AND number = ANY($2::text[])
     ORDER BY array_position($2::text[], number) LIMIT 1`,
    [channelType, numbers],
  );
  return row ? { accountId: Number(row.account_id), number: row.number } : undefined;
}

/** Releases an account's number; returns whether it had it. */
export async function inboundNumberRelease(
  db: Queryable,
  n: { channelType: string; number: string; accountId: number },
): Promise<boolean> {
  const rows = await db.query(
    'DELETE FROM inbound_numbers WHERE channel_type = $1 AND number = $2 AND account_id = $3 RETURNING number',
    [n.channelType, n.number, n.accountId],
  );
  return rows.length > 0;
}

/**
 * Moves an account's number to another account in one statement (its one owner changes, it is never unowned or
 * owned twice); returns the moved row, or undefined when `fromAccountId` does not have the number. The caller checks
 * that the other account exists (the foreign key would refuse it anyway).
 */
export async function inboundNumberMove(
  db: Queryable,
  n: { channelType: string; number: string; fromAccountId: number; toAccountId: number; at: Date },
): Promise<InboundNumberRow | undefined> {
  const [row] = await db.query<InboundNumberRow>(
    `UPDATE inbound_numbers SET account_id = $4, created_at = CASE WHEN account_id = $4 THEN created_at ELSE $5 END
     WHERE channel_type = $1 AND number = $2 AND account_id = $3
     RETURNING channel_type, number, account_id, created_at`,
    [n.channelType, n.number, n.fromAccountId, n.toAccountId, n.at],
  );
  return row;
}

export async function inboundNumberList(db: Queryable, accountId: number): Promise<InboundNumberRow[]> {
  return db.query<InboundNumberRow>(
    `SELECT channel_type, number, account_id, created_at FROM inbound_numbers WHERE account_id = $1
     ORDER BY channel_type, number`,
    [accountId],
  );
}
