import { lockAccount } from '../db/accountLocks.js';
import type { Db, Queryable } from '../db/db.js';

/** A bind as stored (see migration 0051). */
export interface SmppBindRow {
  readonly id: string;
  readonly account_id: number;
  readonly system_id: string;
  readonly address: string;
  readonly bind_type: 'transmitter' | 'receiver' | 'transceiver';
  readonly since: Date;
  readonly submits_outstanding: number;
  readonly delivers_outstanding: number;
  readonly window_size: number;
}

/**
 * Records a bind unless the account already has `limit` binds seen since `liveSince` (every api process's), in one
 * transaction holding the account's lock: binds that race are counted exactly. Returns whether it was recorded.
 */
export async function smppBindInsert(
  db: Db,
  bind: {
    id: string;
    accountId: number;
    systemId: string;
    address: string;
    bindType: string;
    now: Date;
    windowSize: number;
  },
  limit: number,
  liveSince: Date,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockAccount(tx, 'smppBinds', bind.accountId);
    const rows = await tx.query(
      `INSERT INTO smpp_binds (id, account_id, system_id, address, bind_type, since, seen_at, window_size)
       SELECT $1, $2, $3, $4, $5, $6, $6, $7
       WHERE (SELECT count(*) FROM smpp_binds WHERE account_id = $2 AND seen_at >= $8) < $9
       RETURNING 1`,
      [
        bind.id,
        bind.accountId,
        bind.systemId,
        bind.address,
        bind.bindType,
        bind.now,
        bind.windowSize,
        liveSince,
        limit,
      ],
    );
    return rows.length > 0;
  });
}

export async function smppBindDelete(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM smpp_binds WHERE id = $1', [id]);
}

/**
 * Marks this process's binds seen at `now` with their window use, in one statement, and deletes the rows of binds not
 * seen since `liveSince` (a process that died).
 */
export async function smppBindsTouch(
  db: Queryable,
  binds: readonly { id: string; submits: number; delivers: number }[],
  now: Date,
  liveSince: Date,
): Promise<void> {
  await db.query(
    `WITH seen AS (
       UPDATE smpp_binds b SET seen_at = $4, submits_outstanding = x.submits, delivers_outstanding = x.delivers
       FROM unnest($1::uuid[], $2::int[], $3::int[]) AS x(id, submits, delivers)
       WHERE b.id = x.id
     )
     DELETE FROM smpp_binds WHERE seen_at < $5`,
    [binds.map((b) => b.id), binds.map((b) => b.submits), binds.map((b) => b.delivers), now, liveSince],
  );
}

/** Binds seen since `liveSince`, of one account or all, oldest first. */
export async function smppBindsList(db: Queryable, accountId: number | null, liveSince: Date): Promise<SmppBindRow[]> {
  return db.query<SmppBindRow>(
    `SELECT id, account_id::int AS account_id, system_id, address, bind_type, since, submits_outstanding,
       delivers_outstanding, window_size
     FROM smpp_binds WHERE ($1::bigint IS NULL OR account_id = $1) AND seen_at >= $2
     ORDER BY since, id LIMIT 10000`,
    [accountId, liveSince],
  );
}
