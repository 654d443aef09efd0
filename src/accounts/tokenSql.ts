import type { Db, Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import type { GuardSide } from '../shared/guardSettings.js';
import type { TokenType } from './tokens.js';

export interface TokenRow {
  id: string;
  account_id: number;
  type: TokenType;
  traffic_center_id: number | null;
  created_at: Date;
  revoked_at: Date | null;
  /** The user the token descends from (migration 0013), or null. */
  created_by_user: number | null;
}

/** A live token with what authentication needs of its account, read in one query. */
export interface TokenWithAccountRow {
  id: string;
  account_id: number;
  type: TokenType;
  secret_hash: Uint8Array;
  traffic_center_id: number | null;
  /** The sign-in that issued it (a session token), or null for an API key. */
  session_id: string | null;
  /** The user it descends from (migration 0013), or null. */
  created_by_user: number | null;
  account_name: string;
  account_status: 'active' | 'blocked';
  account_channels: Partial<Record<Channel, boolean>>;
  account_currency: string;
  account_max_rate: number | null;
  /** The account's SMPP binds at once (DESIGN 22). */
  account_smpp_binds: number;
  /** The operator's guard settings and the client's narrowing of them (shared/guardSettings.ts). */
  account_guard_operator: GuardSide;
  account_guard_client: GuardSide;
}

/** What makes a token a session token: its session, how the session began, and when it ends. */
export interface SessionMark {
  readonly sessionId: string;
  /** 'token:<key id>' (signed in with a system API key) or 'user:<id>' (with a login). */
  readonly sessionOf: string;
  readonly expiresAt: Date;
}

/**
 * Who issues a token: the user it descends from (a sign-in's user, or the user of the token that issues it) and the
 * web session whose token issues it. The caller holds that user (accountUserLock) until its transaction ends.
 */
export interface TokenMaker {
  readonly userId: number | null;
  readonly sessionId: string | null;
}

const TOKEN_COLUMNS = 'id, account_id, type, traffic_center_id, created_at, revoked_at, created_by_user';

export async function tokenInsert(
  db: Queryable,
  token: {
    id: string;
    accountId: number;
    type: TokenType;
    secretHash: Buffer;
    trafficCenterId: number | null;
    now: Date;
    session?: SessionMark;
    maker?: TokenMaker;
  },
): Promise<TokenRow> {
  const [row] = await db.query<TokenRow>(
    `INSERT INTO api_tokens (id, account_id, type, secret_hash, traffic_center_id, created_at, session_id, session_of,
       expires_at, created_by_user, created_in_session)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING ${TOKEN_COLUMNS}`,
    [
      token.id,
      token.accountId,
      token.type,
      token.secretHash,
      token.trafficCenterId,
      token.now,
      token.session?.sessionId ?? null,
      token.session?.sessionOf ?? null,
      token.session?.expiresAt ?? null,
      token.maker?.userId ?? null,
      token.maker?.sessionId ?? null,
    ],
  );
  return row!;
}

/** A token that is neither revoked nor expired at `now`, with its account. */
export async function tokenFindLive(db: Queryable, id: string, now: Date): Promise<TokenWithAccountRow | undefined> {
  const [row] = await db.query<TokenWithAccountRow>(
    `SELECT t.id, t.account_id, t.type, t.secret_hash, t.traffic_center_id, t.session_id, t.created_by_user,
       a.name AS account_name, a.status AS account_status, a.channels AS account_channels,
       a.currency AS account_currency, a.max_rate AS account_max_rate,
       a.smpp_binds AS account_smpp_binds, a.guard_operator AS account_guard_operator,
       a.guard_client AS account_guard_client
     FROM api_tokens t JOIN accounts a ON a.id = t.account_id
     WHERE t.id = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`,
    [id, now],
  );
  return row;
}

/** The account's API keys, revoked ones included; session tokens are left out (they come and go with sign-ins). */
export async function tokenList(db: Queryable, accountId: number): Promise<TokenRow[]> {
  return db.query<TokenRow>(
    `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE account_id = $1 AND session_id IS NULL ORDER BY created_at, id`,
    [accountId],
  );
}

/**
 * Revokes a live token of the account, and the sessions opened with it (`session_of = 'token:<id>'`); false when
 * there is no such live token. `apiKeysOnly` leaves session tokens alone (they are not API keys). Two statements:
 * the second must see the tokens of a sign-in that held the key until the first could revoke it (sessions.ts).
 */
async function revoke(db: Db, accountId: number, id: string, now: Date, apiKeysOnly: boolean): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.query(
      `UPDATE api_tokens SET revoked_at = $3
       WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL AND (NOT $4 OR session_id IS NULL)
       RETURNING id`,
      [accountId, id, now, apiKeysOnly],
    );
    if (rows.length === 0) return false;
    await tokenRevokeSessionsOf(tx, accountId, `token:${id}`, now);
    return true;
  });
}

/** Revokes a token of the account (API key or session token); false when there is no such live token. */
export async function tokenRevoke(db: Db, accountId: number, id: string, now: Date): Promise<boolean> {
  return revoke(db, accountId, id, now, false);
}

/** Revokes an API key (not a session token) of the account; false when there is no such live key. */
export async function tokenRevokeApiKey(db: Db, accountId: number, id: string, now: Date): Promise<boolean> {
  return revoke(db, accountId, id, now, true);
}

/** The ids of the account's live API keys bound to a traffic center, oldest first. */
export async function tokenLiveBoundToCenter(db: Queryable, accountId: number, centerId: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM api_tokens WHERE account_id = $1 AND traffic_center_id = $2 AND revoked_at IS NULL ' +
      'ORDER BY created_at, id',
    [accountId, centerId],
  );
  return rows.map((row) => row.id);
}

/**
 * Locks a live API key until the transaction ends, so that it cannot be revoked meanwhile; false when it is not live.
 */
export async function tokenLockLive(tx: Queryable, id: string): Promise<boolean> {
  const rows = await tx.query('SELECT id FROM api_tokens WHERE id = $1 AND revoked_at IS NULL FOR SHARE', [id]);
  return rows.length > 0;
}

/** Ends one session: revokes both of its tokens. Returns how many were live. */
export async function tokenRevokeSession(
  db: Queryable,
  accountId: number,
  sessionId: string,
  now: Date,
): Promise<number> {
  const rows = await db.query(
    'UPDATE api_tokens SET revoked_at = $3 WHERE account_id = $1 AND session_id = $2 AND revoked_at IS NULL ' +
      'RETURNING id',
    [accountId, sessionId, now],
  );
  return rows.length;
}

/**
 * Ends every session that began the same way (`user:<id>`, `token:<key id>`): revokes their tokens. Returns how many
 * were live.
 */
export async function tokenRevokeSessionsOf(
  db: Queryable,
  accountId: number,
  sessionOf: string,
  now: Date,
): Promise<number> {
  const rows = await db.query(
    'UPDATE api_tokens SET revoked_at = $3 WHERE account_id = $1 AND session_of = $2 AND revoked_at IS NULL ' +
      'RETURNING id',
    [accountId, sessionOf, now],
  );
  return rows.length;
}

/**
 * Revokes every live token that descends from the user (migration 0013): their sessions, the keys issued with them,
 * and keys issued in turn with those. Call after deleting the user or changing their password in the same
 * transaction: that statement waits for any transaction holding the user while it issues such a token, so this one
 * sees the token. Returns how many were live.
 */
export async function tokenRevokeMadeBy(db: Queryable, accountId: number, userId: number, now: Date): Promise<number> {
  const rows = await db.query(
    'UPDATE api_tokens SET revoked_at = $3 WHERE account_id = $1 AND created_by_user = $2 AND revoked_at IS NULL ' +
      'RETURNING id',
    [accountId, userId, now],
  );
  return rows.length;
}

/** What a page shows of the session a token belongs to: its end, and the user who signed in (null with an API key). */
export async function tokenSessionFind(
  db: Queryable,
  id: string,
): Promise<{ expires_at: Date; login: string | null; account_name: string } | undefined> {
  const [row] = await db.query<{ expires_at: Date; login: string | null; account_name: string }>(
    `SELECT t.expires_at, u.login, a.name AS account_name
     FROM api_tokens t JOIN accounts a ON a.id = t.account_id
       LEFT JOIN account_users u ON t.session_of = 'user:' || u.id
     WHERE t.id = $1 AND t.session_id IS NOT NULL`,
    [id],
  );
  return row;
}
