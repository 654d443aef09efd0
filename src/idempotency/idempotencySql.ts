import type { Queryable } from '../db/db.js';

export interface IdempotencyRow {
  request_hash: string;
  status_code: number;
  response: unknown;
  /** Set while the request is stored in slices (see idempotencyBegin); null once its answer is complete. */
  pending_until: Date | null;
}

export interface IdempotencyKey {
  readonly accountId: number;
  readonly operation: string;
  readonly key: string;
}

/** The live (younger than `since`) record of a key, if any. */
export async function idempotencyGet(
  db: Queryable,
  key: IdempotencyKey,
  since: Date,
  lock: 'lock' | undefined = undefined,
): Promise<IdempotencyRow | undefined> {
  const [row] = await db.query<IdempotencyRow>(
    `SELECT request_hash, status_code, response, pending_until FROM idempotency_keys
     WHERE account_id = $1 AND operation = $2 AND key = $3 AND created_at > $4${lock ? ' FOR UPDATE' : ''}`,
    [key.accountId, key.operation, key.key, since],
  );
  return row;
}

/**
 * Records a key as pending until `pendingUntil`, with no items yet (a request stored in slices). An expired record
 * of the key is replaced; false when a live one exists (another request with the key began meanwhile).
 */
export async function idempotencyBegin(
  db: Queryable,
  record: IdempotencyKey & { requestHash: string; now: Date; pendingUntil: Date; expiredBefore: Date },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (account_id, operation, key, request_hash, status_code, response, created_at,
       pending_until)
     VALUES ($1, $2, $3, $4, 0, '[]', $5, $6)
     ON CONFLICT (account_id, operation, key) DO UPDATE
       SET request_hash = excluded.request_hash, status_code = 0, response = '[]', created_at = excluded.created_at,
           pending_until = excluded.pending_until
       WHERE idempotency_keys.created_at <= $7
     RETURNING key`,
    [
      record.accountId,
      record.operation,
      record.key,
      record.requestHash,
      record.now,
      record.pendingUntil,
      record.expiredBefore,
    ],
  );
  return rows.length > 0;
}

/**
 * Appends a committed slice's items to a pending key's, in the slice's transaction, and renews its time; only if
 * the key holds exactly `start` items, so that two attempts at one key never both store the same items: false
 * tells the caller that another attempt got there first (its transaction is to be rolled back).
 */
export async function idempotencyAppend(
  db: Queryable,
  key: IdempotencyKey,
  start: number,
  items: readonly unknown[],
  pendingUntil: Date,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE idempotency_keys SET response = response || $5::jsonb, pending_until = $6
     WHERE account_id = $1 AND operation = $2 AND key = $3 AND pending_until IS NOT NULL
       AND jsonb_array_length(response) = $4
     RETURNING key`,
    [key.accountId, key.operation, key.key, start, JSON.stringify(items), pendingUntil],
  );
  return rows.length > 0;
}

/** Sets a pending key's time: its renewal when a retry takes it over, its release when an attempt fails. */
export async function idempotencyHold(db: Queryable, key: IdempotencyKey, pendingUntil: Date): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET pending_until = $4
     WHERE account_id = $1 AND operation = $2 AND key = $3 AND pending_until IS NOT NULL`,
    [key.accountId, key.operation, key.key, pendingUntil],
  );
}

/** Writes a pending key's whole answer: from now on it is replayed. */
export async function idempotencyComplete(
  db: Queryable,
  key: IdempotencyKey,
  statusCode: number,
  response: unknown,
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET status_code = $4, response = $5, pending_until = NULL
     WHERE account_id = $1 AND operation = $2 AND key = $3`,
    [key.accountId, key.operation, key.key, statusCode, JSON.stringify(response)],
  );
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
