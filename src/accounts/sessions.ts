import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/db.js';
import { accountUserFindByLogin, accountUserLock } from './accountUserSql.js';
import { createToken } from './accounts.js';
import type { PasswordHasher } from './passwords.js';
import { tokenFindLive, tokenLockLive } from './tokenSql.js';
import { secretMatches } from '../util/secrets.js';
import { parseToken } from './tokens.js';

/** How long the tokens of a web sign-in work: a working day; then the person signs in again. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

/**
 * A web sign-in: two new tokens of the account, marked as one session (api_tokens.session_id), that end at
 * `expiresAt`. api_tokens.session_of records where it came from, `user:<id>` or `token:<key id>`: deleting that
 * user or revoking that key ends the session too. Its tokens descend from the user (api_tokens.created_by_user),
 * or from the key's user when the key descends from one.
 */
export interface Session {
  readonly accountId: number;
  readonly accountName: string;
  /** The user who signed in, or null when the session began with a system API key. */
  readonly login: string | null;
  readonly traffic: string;
  readonly system: string;
  readonly expiresAt: Date;
}

/** Why a sign-in was refused: unknown login, wrong password, not a live system API key; or a blocked account. */
export type SignInRefusal = 'bad-credentials' | 'blocked';

/**
 * Signs a user in with login and password. An unknown login costs the same scrypt time as a wrong password; the
 * account's state is told only to someone who gave the right password.
 */
export async function signInWithPassword(
  db: Db,
  passwords: PasswordHasher,
  login: string,
  password: string,
  now: Date,
): Promise<Session | SignInRefusal> {
  const user = await accountUserFindByLogin(db, login);
  const matches = await passwords.verify(password, user?.password_hash);
  if (!user || !matches) return 'bad-credentials';
  if (user.account_status !== 'active') return 'blocked';
  const who = {
    accountId: user.account_id,
    accountName: user.account_name,
    login: user.login,
    sessionOf: `user:${user.id}`,
    userId: user.id,
  };
  return startSession(db, who, (tx) => accountUserLock(tx, user.id), now);
}

/**
 * Signs in with a system API key (TOKEN_2, as clients send it after `Basic `). Traffic tokens and session tokens
 * are refused: a session cannot renew itself past its 12 hours.
 */
export async function signInWithToken(db: Db, token: string, now: Date): Promise<Session | SignInRefusal> {
  const presented = parseToken(token);
  if (presented === 'invalid') return 'bad-credentials';
  const row = await tokenFindLive(db, presented.keyId, now);
  if (!row || !secretMatches(presented.secret, Buffer.from(row.secret_hash))) return 'bad-credentials';
  if (row.type !== 'system' || row.session_id !== null) return 'bad-credentials';
  if (row.account_status !== 'active') return 'blocked';
  const who = {
    accountId: row.account_id,
    accountName: row.account_name,
    login: null,
    sessionOf: `token:${row.id}`,
    userId: row.created_by_user,
  };
  // A key that descends from a user passes the user on to the session: hold both, so that deleting either waits.
  const user = row.created_by_user;
  const hold = async (tx: Queryable) =>
    (await tokenLockLive(tx, row.id)) && (user === null || (await accountUserLock(tx, user)));
  return startSession(db, who, hold, now);
}

/**
 * Issues the session's two tokens while holding what the session comes from (the user, or the API key), so that
 * deleting the user or revoking the key at the same moment cannot leave a session behind: it either waits for the
 * tokens and then revokes them with the others, or wins and the sign-in is refused.
 */
async function startSession(
  db: Db,
  who: { accountId: number; accountName: string; login: string | null; sessionOf: string; userId: number | null },
  hold: (tx: Queryable) => Promise<boolean>,
  now: Date,
): Promise<Session | SignInRefusal> {
  const session = {
    sessionId: randomBytes(12).toString('base64url'),
    sessionOf: who.sessionOf,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  };
  const maker = { userId: who.userId, sessionId: null };
  const tokens = await db.transaction(async (tx) => {
    if (!(await hold(tx))) return undefined;
    return {
      traffic: (await createToken(tx, who.accountId, 'traffic', null, now, session, maker)).token,
      system: (await createToken(tx, who.accountId, 'system', null, now, session, maker)).token,
    };
  });
  if (!tokens) return 'bad-credentials';
  return {
    accountId: who.accountId,
    accountName: who.accountName,
    login: who.login,
    ...tokens,
    expiresAt: session.expiresAt,
  };
}
