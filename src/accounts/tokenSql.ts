import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import type { TokenType } from './tokens.js';

export interface TokenRow {
  id: string;
  account_id: number;
  type: TokenType;
  traffic_center_id: number | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** A live token with what authentication needs of its account, read in one query. */
export interface TokenWithAccountRow {
  id: string;
  account_id: number;
  type: TokenType;
  secret_hash: Uint8Array;
  traffic_center_id: number | null;
  account_status: 'active' | 'blocked';
  account_channels: Partial<Record<Channel, boolean>>;
}

export async function tokenInsert(
  db: Queryable,
  token: { id: string; accountId: number; type: TokenType; secretHash: Buffer; trafficCenterId: number | null; now: Date },
): Promise<TokenRow> {
  const [row] = await db.query<TokenRow>(
    `INSERT INTO api_tokens (id, account_id, type, secret_hash, traffic_center_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, account_id, type, traffic_center_id, created_at, revoked_at`,
    [token.id, token.accountId, token.type, token.secretHash, token.trafficCenterId, token.now],
  );
  return row!;
}

export async function tokenFindLive(db: Queryable, id: string): Promise<TokenWithAccountRow | undefined> {
  const [row] = await db.query<TokenWithAccountRow>(
    `SELECT t.id, t.account_id, t.type, t.secret_hash, t.traffic_center_id, a.status AS account_status, a.channels AS account_channels
     FROM api_tokens t JOIN accounts a ON a.id = t.account_id
     WHERE t.id = $1 AND t.revoked_at IS NULL`,
    [id],
  );
  return row;
}

export async function tokenList(db: Queryable, accountId: number): Promise<TokenRow[]> {
  return db.query<TokenRow>(
    `SELECT id, account_id, type, traffic_center_id, created_at, revoked_at
     FROM api_tokens WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
}

/** Revokes a token of the account; false when there is no such live token. */
export async function tokenRevoke(db: Queryable, accountId: number, id: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    'UPDATE api_tokens SET revoked_at = $3 WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id',
    [accountId, id, now],
  );
  return rows.length > 0;
}
