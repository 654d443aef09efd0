import type { Queryable } from '../db/db.js';

export interface IdempotencyRow {
  request_hash: string;
  status_code: number;
  response: unknown;
}

/** The live (younger than `since`) record of a key, if any. */
export async function idempotencyGet(
  db: Queryable,
  key: { accountId: number; operation: string; key: string },
  since: Date,
): Promise<IdempotencyRow | undefined> {
  const [row] = await db.query<IdempotencyRow>(
    `SELECT request_hash, status_code, response FROM idempotency_keys
     WHERE account_id = $1 AND operation = $2 AND key = $3 AND created_at > $4`,
    [key.accountId, key.operation, key.key, since],
  );
  return row;
}

/**
 * Records a key's response. An expired record of the same key is replaced; a live one is left alone and false is
 * returned, which tells the caller that another request with this key won the race.
 */
export async function idempotencyPut(
  db: Queryable,
  record: {
    accountId: number;
    operation: string;
    key: string;
    requestHash: string;
    statusCode: number;
    response: unknown;
    now: Date;
    expiredBefore: Date;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (account_id, operation, key, request_hash, status_code, response, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account_id, operation, key) DO UPDATE
       SET request_hash = excluded.request_hash, status_code = excluded.status_code,
           response = excluded.response, created_at = excluded.created_at
       WHERE idempotency_keys.created_at <= $8
     RETURNING key`,
    [
      record.accountId,
      record.operation,
      record.key,
      record.requestHash,
      record.statusCode,
      JSON.stringify(record.response),
      record.now,
      record.expiredBefore,
    ],
  );
  return rows.length > 0;
}

/** Deletes records older than `before`; returns how many. */
export async function idempotencyPurge(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (
       SELECT ctid FROM idempotency_keys WHERE created_at <= $1 LIMIT $2
     ) RETURNING key`,
    [before, limit],
  );
  return rows.length;
}
