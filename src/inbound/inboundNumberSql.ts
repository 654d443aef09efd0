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

/** The account that owns a number, if any. */
export async function inboundNumberOwner(
  db: Queryable,
  channelType: string,
  number: string,
): Promise<number | undefined> {
  const [row] = await db.query<{ account_id: number }>(
    'SELECT account_id FROM inbound_numbers WHERE channel_type = $1 AND number = $2',
    [channelType, number],
  );
  return row ? Number(row.account_id) : undefined;
}

export async function inboundNumberList(db: Queryable, accountId: number): Promise<InboundNumberRow[]> {
  return db.query<InboundNumberRow>(
    `SELECT channel_type, number, account_id, created_at FROM inbound_numbers WHERE account_id = $1
     ORDER BY channel_type, number`,
    [accountId],
  );
}
