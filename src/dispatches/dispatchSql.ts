import type { Queryable } from '../db/db.js';
import type { SendingMethod, ValidMessage } from '../messages/index.js';

/** The statements on dispatches (this capability owns the table). */

/** What is stored; scheduled, sending, awaiting and done are read from the messages of a started dispatch. */
export type StoredStatus = 'initiated' | 'started' | 'paused' | 'stopped';

export interface Speed {
  readonly amount: number;
  readonly unit: 'minute' | 'hour';
}

export interface DispatchRow {
  account_id: number;
  id: string;
  name: string;
  created_at: Date;
  message: ValidMessage;
  speed: Speed | null;
  speed_ms: number;
  status: StoredStatus;
  started_at: Date | null;
  traffic_center_id: number | null;
  sending_method: SendingMethod;
  currency: string;
}

export async function dispatchInsert(
  db: Queryable,
  d: {
    accountId: number;
    id: string;
    name: string;
    now: Date;
    message: ValidMessage;
    speed: Speed | null;
    speedMs: number;
    trafficCenterId: number | null;
    sendingMethod: SendingMethod;
    currency: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO dispatches (account_id, id, name, created_at, message, speed, speed_ms, traffic_center_id,
       sending_method, currency)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      d.accountId,
      d.id,
      d.name,
      d.now,
      JSON.stringify(d.message),
      d.speed === null ? null : JSON.stringify(d.speed),
      d.speedMs,
      d.trafficCenterId,
      d.sendingMethod,
      d.currency,
    ],
  );
}

/**
 * An account's dispatch, locked when `lock` says so: FOR SHARE while messages are added (several adds at once,
 * no start meanwhile), FOR UPDATE to change its status. Dispatches are locked before their messages.
 */
export async function dispatchGet(
  db: Queryable,
  accountId: number,
  id: string,
  lock: 'share' | 'update' | null = null,
): Promise<DispatchRow | undefined> {
  const [row] = await db.query<DispatchRow>(
    `SELECT * FROM dispatches WHERE account_id = $1 AND id = $2${lock ? ` FOR ${lock.toUpperCase()}` : ''}`,
    [accountId, id],
  );
  return row;
}

export async function dispatchSetStatus(
  db: Queryable,
  accountId: number,
  id: string,
  status: StoredStatus,
  startedAt?: Date,
): Promise<void> {
  await db.query(
    'UPDATE dispatches SET status = $3, started_at = coalesce($4, started_at) WHERE account_id = $1 AND id = $2',
    [accountId, id, status, startedAt ?? null],
  );
}

export interface DispatchFilter {
  readonly createdFrom: Date | null;
  readonly createdTo: Date | null;
  readonly statuses: readonly StoredStatus[] | null;
  readonly id: string | null;
  readonly name: string | null;
  readonly trafficCenterId: number | null;
}

const WHERE = `account_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2)
  AND ($3::timestamptz IS NULL OR created_at <= $3) AND ($4::text[] IS NULL OR status = ANY($4))
  AND ($5::uuid IS NULL OR id = $5) AND ($6::text IS NULL OR name = $6)
  AND ($7::bigint IS NULL OR traffic_center_id = $7)`;

/** An account's dispatches, newest first, and how many match. */
export async function dispatchList(
  db: Queryable,
  accountId: number,
  f: DispatchFilter,
  limit: number,
  offset: number,
): Promise<{ rows: DispatchRow[]; total: number }> {
  const params = [accountId, f.createdFrom, f.createdTo, f.statuses, f.id, f.name, f.trafficCenterId];
  const [rows, [count]] = await Promise.all([
    db.query<DispatchRow>(
      `SELECT * FROM dispatches WHERE ${WHERE} ORDER BY created_at DESC, id DESC LIMIT $8 OFFSET $9`,
      [...params, limit, offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dispatches WHERE ${WHERE}`, params),
  ]);
  return { rows, total: count!.n };
}
