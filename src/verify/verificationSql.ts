import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';

/** The statements on verifications and verify_keys (this capability owns both tables). */

/**
 * pending: can be confirmed; confirmed; replaced by a newer send to its destination through its verifier; expired:
 * used up by its maxChecks checks, or past its codeTtl (a code past its codeTtl may stay pending until the expiry job
 * or a check comes to it).
 */
export const VERIFICATION_STATES = {
  pending: 'pending',
  confirmed: 'confirmed',
  replaced: 'replaced',
  expired: 'expired',
} as const;
export type VerificationState = (typeof VERIFICATION_STATES)[keyof typeof VERIFICATION_STATES];

export interface VerificationRow {
  account_id: number;
  id: string;
  gateway_id: string;
  destination: string;
  code_hmac: Uint8Array;
  created_at: Date;
  expires_at: Date;
  max_checks: number;
  checks: number;
  state: VerificationState;
  confirmed_at: Date | null;
  /** The channel of the step the code was confirmed after: the last one that left Herald. */
  confirmed_channel: Channel | null;
}

/** The HMAC key of codes: made by the first process that asks (a concurrent one keeps the first), then read. */
export async function verifyKeyGet(db: Queryable, now: Date): Promise<Buffer> {
  await db.query('INSERT INTO verify_keys (id, secret, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING', [
    randomBytes(32),
    now,
  ]);
  const [row] = await db.query<{ secret: Uint8Array }>('SELECT secret FROM verify_keys WHERE id = 1');
  return Buffer.from(row!.secret);
}

/** A per-destination key space of pg_advisory_xact_lock(int, int), apart from the account locks (7311_000n). */
const DESTINATION_LOCK_CLASS = 7311_0101;

/**
 * Serialises, until the transaction ends, the sends to one destination through one verifier, so that the count of
 * recent sends and the replacement of the pending code are exact when sends race. Different destinations whose
 * hashes meet share a lock: a needless wait, never a missed one.
 */
export async function verificationLockDestination(
  tx: Queryable,
  accountId: number,
  gatewayId: string,
  destination: string,
): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
    DESTINATION_LOCK_CLASS,
    `${accountId}:${gatewayId}:${destination}`,
  ]);
}

/** How many codes were sent to the destination through the verifier since `since`, and when the first of them. */
export async function verificationRecentSends(
  db: Queryable,
  key: { accountId: number; gatewayId: string; destination: string },
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await db.query<{ count: number; oldest: Date | null }>(
    `SELECT count(*)::int AS count, min(created_at) AS oldest FROM verifications
     WHERE account_id = $1 AND gateway_id = $2 AND destination = $3 AND created_at > $4`,
    [key.accountId, key.gatewayId, key.destination, since],
  );
  return row!;
}

/** The pending codes of the destination and verifier (one at most), locked until the transaction ends. */
export async function verificationLockPending(
  tx: Queryable,
  key: { accountId: number; gatewayId: string; destination: string },
): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM verifications
     WHERE account_id = $1 AND gateway_id = $2 AND destination = $3 AND state = 'pending'
     ORDER BY id FOR UPDATE`,
    [key.accountId, key.gatewayId, key.destination],
  );
  return rows.map((r) => r.id);
}

/** A code's key. */
export interface VerificationKey {
  readonly accountId: number;
  readonly id: string;
}

/** Moves the codes among `keys` that are pending to `state`; returns those it moved. */
export async function verificationsEnd(
  tx: Queryable,
  keys: readonly VerificationKey[],
  state: Exclude<VerificationState, 'pending'>,
): Promise<VerificationKey[]> {
  return tx.query<VerificationKey>(
    `UPDATE verifications v SET state = $3
     FROM unnest($1::bigint[], $2::uuid[]) AS k(account_id, id)
     WHERE v.account_id = k.account_id AND v.id = k.id AND v.state = 'pending'
     RETURNING v.account_id AS "accountId", v.id`,
    [keys.map((k) => k.accountId), keys.map((k) => k.id), state],
  );
}

/**
 * Claims up to `limit` pending codes whose lifetime has ended at `now`, oldest first, locked until the transaction
 * ends; those a check or a send holds are skipped (they are ended there, or at the next pass).
 */
export async function verificationsClaimExpired(tx: Queryable, now: Date, limit: number): Promise<VerificationKey[]> {
  return tx.query<VerificationKey>(
    `SELECT account_id AS "accountId", id FROM verifications
     WHERE state = 'pending' AND expires_at <= $1
     ORDER BY expires_at, account_id, id
     LIMIT $2
     FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
}

/** When the next pending code expires (the first entry of verifications_pending_expiry), or null. */
export async function verificationNextExpiry(db: Queryable): Promise<Date | null> {
  const [row] = await db.query<{ expires_at: Date }>(
    `SELECT expires_at FROM verifications WHERE state = 'pending' ORDER BY expires_at LIMIT 1`,
  );
  return row?.expires_at ?? null;
}

export async function verificationInsert(
  tx: Queryable,
  v: {
    accountId: number;
    id: string;
    gatewayId: string;
    destination: string;
    codeHmac: Buffer;
    createdAt: Date;
    expiresAt: Date;
    maxChecks: number;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO verifications (account_id, id, gateway_id, destination, code_hmac, created_at, expires_at, max_checks)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [v.accountId, v.id, v.gatewayId, v.destination, v.codeHmac, v.createdAt, v.expiresAt, v.maxChecks],
  );
}

/** The account's verification, locked until the transaction ends (a check counts and may confirm it). */
export async function verificationLock(
  tx: Queryable,
  accountId: number,
  id: string,
): Promise<VerificationRow | undefined> {
  const [row] = await tx.query<VerificationRow>(
    'SELECT * FROM verifications WHERE account_id = $1 AND id = $2 FOR UPDATE',
    [accountId, id],
  );
  return row;
}

/**
 * Records a check of a locked verification: one more check, and its confirmation (with the channel of the step it
 * came after) when the code was right.
 */
export async function verificationRecordCheck(
  tx: Queryable,
  accountId: number,
  id: string,
  confirmed: { at: Date; channel: Channel | null } | null,
): Promise<void> {
  await tx.query(
    `UPDATE verifications SET checks = checks + 1,
       state = CASE WHEN $3::timestamptz IS NULL THEN state ELSE 'confirmed' END,
       confirmed_at = coalesce($3::timestamptz, confirmed_at),
       confirmed_channel = coalesce($4, confirmed_channel)
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, confirmed?.at ?? null, confirmed?.channel ?? null],
  );
}

/** What the statistics read of a code. */
export type VerificationFigures = Pick<
  VerificationRow,
  'account_id' | 'id' | 'gateway_id' | 'created_at' | 'state' | 'confirmed_channel'
>;
const FIGURE_COLUMNS = 'account_id, id, gateway_id, created_at, state, confirmed_channel';

/** The account's codes sent in [from, to), of one verifier or all. */
export async function verificationsSentBetween(
  db: Queryable,
  accountId: number,
  range: { from: Date; to: Date; gatewayId: string | null },
): Promise<VerificationFigures[]> {
  return db.query<VerificationFigures>(
    `SELECT ${FIGURE_COLUMNS} FROM verifications
     WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND ($4::text IS NULL OR gateway_id = $4)`,
    [accountId, range.from, range.to, range.gatewayId],
  );
}

/**
 * Deletes verifications that expired before `before`, up to `limit`, and returns them (their figures are rolled up
 * in the same transaction). Rows another worker is deleting are skipped.
 */
export async function verificationsTakeExpired(
  tx: Queryable,
  before: Date,
  limit: number,
): Promise<VerificationFigures[]> {
  return tx.query<VerificationFigures>(
    `DELETE FROM verifications v USING (
       SELECT account_id, id FROM verifications WHERE expires_at < $1 ORDER BY expires_at LIMIT $2
       FOR UPDATE SKIP LOCKED
     ) old
     WHERE v.account_id = old.account_id AND v.id = old.id
     RETURNING ${FIGURE_COLUMNS.split(', ')
       .map((c) => `v.${c}`)
       .join(', ')}`,
    [before, limit],
  );
}
