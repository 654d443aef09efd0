import type { Queryable } from '../db/db.js';

/** The SMPP password of a token, as stored: its scrypt hash (accounts/passwords.ts). */
export interface SmppPasswordRow {
  readonly token_id: string;
  readonly account_id: number;
  readonly password_hash: string;
  readonly created_at: Date;
}

/** Stores the token's SMPP password, replacing the one it had. */
export async function smppPasswordSet(
  db: Queryable,
  p: { tokenId: string; accountId: number; passwordHash: string; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO smpp_passwords (token_id, account_id, password_hash, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (token_id) DO UPDATE SET password_hash = excluded.password_hash, created_at = excluded.created_at`,
    [p.tokenId, p.accountId, p.passwordHash, p.now],
  );
}

/** The token's SMPP password, if one was issued. */
export async function smppPasswordGet(db: Queryable, tokenId: string): Promise<SmppPasswordRow | undefined> {
  const [row] = await db.query<SmppPasswordRow>(
    'SELECT token_id, account_id::int AS account_id, password_hash, created_at FROM smpp_passwords WHERE token_id = $1',
    [tokenId],
  );
  return row;
}
