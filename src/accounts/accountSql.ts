import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import type { GuardSide } from '../shared/guardSettings.js';

export interface AccountRow {
  id: number;
  name: string;
  status: 'active' | 'blocked';
  currency: string;
  channels: Partial<Record<Channel, boolean>>;
  inbound_enabled: boolean;
  credit_limit: string;
  callback_secret: string;
  max_rate: number | null;
  smpp_binds: number;
  inbound_via: string[];
  guard_operator: GuardSide;
  guard_client: GuardSide;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, name, status, currency, channels, inbound_enabled, credit_limit, callback_secret, max_rate, smpp_binds, ' +
  'inbound_via, guard_operator, ' +
  'guard_client, created_at, updated_at';

export async function accountInsert(
  db: Queryable,
  account: { name: string; currency: string; creditLimit: number; callbackSecret: string; now: Date },
): Promise<AccountRow> {
  const [row] = await db.query<AccountRow>(
    `INSERT INTO accounts (name, currency, credit_limit, callback_secret, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${COLUMNS}`,
    [account.name, account.currency, account.creditLimit, account.callbackSecret, account.now],
  );
  return row!;
}

export async function accountGet(db: Queryable, id: number): Promise<AccountRow | undefined> {
  const [row] = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return row;
}

export async function accountList(db: Queryable, limit: number, offset: number): Promise<AccountRow[]> {
  return db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY id LIMIT $1 OFFSET $2`, [limit, offset]);
}

/** Active accounts with their funds: the balance in the account's own currency plus its credit limit. */
const FUNDS = `WITH funds AS (
     SELECT a.id, coalesce(b.amount, 0) + a.credit_limit AS funds FROM accounts a
     LEFT JOIN account_balances b ON b.account_id = a.id AND b.currency = a.currency
     WHERE a.status = 'active')`;

/**
 * The active accounts whose funds (balance in their currency plus credit limit) are below `below`, lowest first:
 * those about to be refused for lack of funds (4020). One page, and how many there are in all.
 */
export async function accountListLowFunds(
  db: Queryable,
  below: number,
  limit: number,
  offset: number,
): Promise<{ rows: AccountRow[]; total: number }> {
  const rows = await db.query<AccountRow>(
    `${FUNDS} SELECT ${COLUMNS} FROM accounts JOIN funds USING (id) WHERE funds.funds < $1
     ORDER BY funds.funds, id LIMIT $2 OFFSET $3`,
    [below, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(`${FUNDS} SELECT count(*)::int AS n FROM funds WHERE funds < $1`, [
    below,
  ]);
  return { rows, total: count!.n };
}

/** The ids of `ids` that are no account's, in their order: one statement for a list of any length. */
export async function accountsMissing(db: Queryable, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.query<{ id: number }>('SELECT id::int AS id FROM accounts WHERE id = ANY($1::bigint[])', [
    ids,
  ]);
  const known = new Set(found.map((a) => a.id));
  return ids.filter((id) => !known.has(id));
}

/** Every account's id, in order. */
export async function accountIds(db: Queryable): Promise<number[]> {
  return (await db.query<{ id: number }>('SELECT id FROM accounts ORDER BY id')).map((a) => a.id);
}

export async function accountCount(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*) AS n FROM accounts');
  return row!.n;
}

export interface AccountChanges {
  name?: string | undefined;
  status?: 'active' | 'blocked' | undefined;
  channels?: Partial<Record<Channel, boolean>> | undefined;
  inboundEnabled?: boolean | undefined;
  creditLimit?: number | undefined;
  /** Messages per second; null removes the cap. */
  maxRate?: number | null | undefined;
  /** SMPP binds at once (DESIGN 22). */
  smppBinds?: number | undefined;
  /** Where inbound SMS go besides the inbound rules (`smpp`: the SMPP binds too). */
  inboundVia?: readonly string[] | undefined;
}

/** Applies the given changes; absent fields keep their value. Channel switches merge into the stored ones. */
export async function accountUpdate(
  db: Queryable,
  id: number,
  changes: AccountChanges,
  now: Date,
): Promise<AccountRow | undefined> {
  const [row] = await db.query<AccountRow>(
    `UPDATE accounts SET
       name = coalesce($2, name),
       status = coalesce($3, status),
       channels = channels || coalesce($4::jsonb, '{}'::jsonb),
       inbound_enabled = coalesce($5, inbound_enabled),
       credit_limit = coalesce($6, credit_limit),
       max_rate = CASE WHEN $8 THEN $9::float8 ELSE max_rate END,
       pace_next = CASE WHEN $8 THEN NULL ELSE pace_next END,
       smpp_binds = coalesce($10, smpp_binds),
       inbound_via = coalesce($11::text[], inbound_via),
       updated_at = $7
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      changes.name ?? null,
      changes.status ?? null,
      changes.channels ? JSON.stringify(changes.channels) : null,
      changes.inboundEnabled ?? null,
      changes.creditLimit ?? null,
      now,
      changes.maxRate !== undefined,
      changes.maxRate ?? null,
      changes.smppBinds ?? null,
      changes.inboundVia ?? null,
    ],
  );
  return row;
}

export async function accountSetCallbackSecret(db: Queryable, id: number, secret: string, now: Date): Promise<void> {
  await db.query('UPDATE accounts SET callback_secret = $2, updated_at = $3 WHERE id = $1', [id, secret, now]);
}
