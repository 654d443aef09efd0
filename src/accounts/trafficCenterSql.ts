import type { Queryable } from '../db/db.js';

export interface TrafficCenterRow {
  id: number;
  account_id: number;
  name: string;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, account_id, name, is_default, created_at, updated_at';

/**
 * The account's default center. Accounts get it (named "Default") when they are created and migration 0008 gave it
 * to older ones; it is created here if missing all the same (an account inserted by other means, such as a bench).
 */
export async function trafficCenterDefault(db: Queryable, accountId: number, now: Date): Promise<TrafficCenterRow> {
  const [existing] = await db.query<TrafficCenterRow>(
    `SELECT ${COLUMNS} FROM traffic_centers WHERE account_id = $1 AND is_default`,
    [accountId],
  );
  if (existing) return existing;
  const [created] = await db.query<TrafficCenterRow>(
    `INSERT INTO traffic_centers (account_id, name, is_default, created_at, updated_at)
     VALUES ($1, 'Default', true, $2, $2)
     ON CONFLICT (account_id) WHERE is_default DO NOTHING RETURNING ${COLUMNS}`,
    [accountId, now],
  );
  return created ?? (await trafficCenterDefault(db, accountId, now));
}

export async function trafficCenterList(db: Queryable, accountId: number): Promise<TrafficCenterRow[]> {
  return db.query<TrafficCenterRow>(`SELECT ${COLUMNS} FROM traffic_centers WHERE account_id = $1 ORDER BY id`, [
    accountId,
  ]);
}

export async function trafficCenterGet(
  db: Queryable,
  accountId: number,
  id: number,
): Promise<TrafficCenterRow | undefined> {
  const [row] = await db.query<TrafficCenterRow>(
    `SELECT ${COLUMNS} FROM traffic_centers WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return row;
}

export async function trafficCenterCount(db: Queryable, accountId: number): Promise<number> {
  const [row] = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM traffic_centers WHERE account_id = $1',
    [accountId],
  );
  return row!.count;
}

export async function trafficCenterInsert(
  db: Queryable,
  accountId: number,
  name: string,
  now: Date,
): Promise<TrafficCenterRow> {
  const [row] = await db.query<TrafficCenterRow>(
    `INSERT INTO traffic_centers (account_id, name, created_at, updated_at) VALUES ($1, $2, $3, $3)
     RETURNING ${COLUMNS}`,
    [accountId, name, now],
  );
  return row!;
}

/** Renames a center and, with isDefault, makes it the account's default (the old default stops being one). */
export async function trafficCenterUpdate(
  db: Queryable,
  accountId: number,
  id: number,
  changes: { name?: string | undefined; isDefault?: boolean | undefined },
  now: Date,
): Promise<TrafficCenterRow | undefined> {
  if (changes.isDefault) {
    await db.query(
      'UPDATE traffic_centers SET is_default = false, updated_at = $3 WHERE account_id = $1 AND is_default ' +
        'AND id <> $2',
      [accountId, id, now],
    );
  }
  const [row] = await db.query<TrafficCenterRow>(
    `UPDATE traffic_centers SET name = coalesce($3, name), is_default = is_default OR coalesce($4, false),
       updated_at = $5
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, changes.name ?? null, changes.isDefault ?? null, now],
  );
  return row;
}

/**
 * A center of the account, held until the transaction ends so that it cannot be deleted meanwhile: what binds a rule
 * or a key to it takes this first (a delete in progress makes it wait, then find nothing).
 */
export const trafficCenterHold = (
  tx: Queryable,
  accountId: number,
  id: number,
): Promise<TrafficCenterRow | undefined> => trafficCenterLocked(tx, accountId, id, 'FOR SHARE');

/** A center of the account, locked for its deletion: whatever would bind to it waits until the transaction ends. */
export const trafficCenterLock = (
  tx: Queryable,
  accountId: number,
  id: number,
): Promise<TrafficCenterRow | undefined> => trafficCenterLocked(tx, accountId, id, 'FOR UPDATE');

async function trafficCenterLocked(
  tx: Queryable,
  accountId: number,
  id: number,
  mode: 'FOR SHARE' | 'FOR UPDATE',
): Promise<TrafficCenterRow | undefined> {
  const [row] = await tx.query<TrafficCenterRow>(
    `SELECT ${COLUMNS} FROM traffic_centers WHERE account_id = $1 AND id = $2 ${mode}`,
    [accountId, id],
  );
  return row;
}

export async function trafficCenterDelete(tx: Queryable, accountId: number, id: number): Promise<void> {
  await tx.query('DELETE FROM traffic_centers WHERE account_id = $1 AND id = $2', [accountId, id]);
}
