import type { Queryable } from '../db/db.js';

export interface AccountUserRow {
  id: number;
  account_id: number;
  login: string;
  created_at: Date;
}

/** A user with its password hash and what signing in needs of its account. */
export interface AccountUserWithAccountRow extends AccountUserRow {
  password_hash: string;
  account_name: string;
  account_status: 'active' | 'blocked';
}

const USER_COLUMNS = 'id, account_id, login, created_at';

/** Creates a user; undefined when the login is taken (by a user of any account). */
export async function accountUserInsert(
  db: Queryable,
  user: { accountId: number; login: string; passwordHash: string; now: Date },
): Promise<AccountUserRow | undefined> {
  const [row] = await db.query<AccountUserRow>(
    `INSERT INTO account_users (account_id, login, password_hash, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (login) DO NOTHING
     RETURNING ${USER_COLUMNS}`,
    [user.accountId, user.login, user.passwordHash, user.now],
  );
  return row;
}

export async function accountUserList(db: Queryable, accountId: number): Promise<AccountUserRow[]> {
  return db.query<AccountUserRow>(`SELECT ${USER_COLUMNS} FROM account_users WHERE account_id = $1 ORDER BY id`, [
    accountId,
  ]);
}

export async function accountUserFindByLogin(
  db: Queryable,
  login: string,
): Promise<AccountUserWithAccountRow | undefined> {
  const [row] = await db.query<AccountUserWithAccountRow>(
    `SELECT u.id, u.account_id, u.login, u.created_at, u.password_hash, a.name AS account_name,
       a.status AS account_status
     FROM account_users u JOIN accounts a ON a.id = u.account_id WHERE u.login = $1`,
    [login],
  );
  return row;
}

/** Locks a user until the transaction ends, so that it cannot be deleted meanwhile; false when it is gone. */
export async function accountUserLock(tx: Queryable, id: number): Promise<boolean> {
  const rows = await tx.query('SELECT id FROM account_users WHERE id = $1 FOR SHARE', [id]);
  return rows.length > 0;
}

/** Deletes a user of the account; false when there is no such user. */
export async function accountUserDelete(db: Queryable, accountId: number, id: number): Promise<boolean> {
  const rows = await db.query('DELETE FROM account_users WHERE account_id = $1 AND id = $2 RETURNING id', [
    accountId,
    id,
  ]);
  return rows.length > 0;
}

/** Sets a user's password; false when the account has no such user. */
export async function accountUserSetPassword(
  db: Queryable,
  accountId: number,
  id: number,
  passwordHash: string,
): Promise<boolean> {
  const rows = await db.query(
    'UPDATE account_users SET password_hash = $3 WHERE account_id = $1 AND id = $2 RETURNING id',
    [accountId, id, passwordHash],
  );
  return rows.length > 0;
}
