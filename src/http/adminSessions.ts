import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import { hashSecret, secretMatches } from '../util/secrets.js';

/** How long a console sign-in lasts: a working day, as the personal account's (accounts/sessions.ts). */
export const ADMIN_SESSION_TTL_MS = 12 * 3600 * 1000;

/**
 * Opens a console session for someone who gave the admin token: returns the cookie's value, `<id>.<secret>`, and
 * its end. Sessions that ended or expired are deleted on the way (there are a few a day).
 */
export async function adminSessionStart(
  db: Queryable,
  adminToken: string,
  now: Date,
): Promise<{ cookie: string; expiresAt: Date }> {
  const id = randomBytes(12).toString('base64url');
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + ADMIN_SESSION_TTL_MS);
  await db.query(
    `WITH gone AS (DELETE FROM admin_sessions WHERE expires_at <= $4 OR ended_at IS NOT NULL)
     INSERT INTO admin_sessions (id, secret_hash, admin_token_hash, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [id, hashSecret(secret), hashSecret(adminToken), now, expiresAt],
  );
  return { cookie: `${id}.${secret}`, expiresAt };
}

/** The live session of a console cookie opened with the current admin token, or undefined. */
export async function adminSessionFind(
  db: Queryable,
  cookie: string,
  adminToken: string,
  now: Date,
): Promise<{ id: string; expiresAt: Date } | undefined> {
  const [id, secret, ...rest] = cookie.split('.');
  if (!id || !secret || rest.length > 0 || !/^[\w-]{16}$/.test(id)) return undefined;
  const [row] = await db.query<{ secret_hash: Uint8Array; admin_token_hash: Uint8Array; expires_at: Date }>(
    `SELECT secret_hash, admin_token_hash, expires_at FROM admin_sessions
     WHERE id = $1 AND ended_at IS NULL AND expires_at > $2`,
    [id, now],
  );
  if (!row) return undefined;
  if (!secretMatches(secret, row.secret_hash) || !secretMatches(adminToken, row.admin_token_hash)) return undefined;
  return { id, expiresAt: row.expires_at };
}

/** Ends a console session (sign-out). */
export async function adminSessionEnd(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE admin_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL', [id, now]);
}
