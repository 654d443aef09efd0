import type { DispatchStatuses } from '../cascades/index.js';
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
  /** A dispatch of cascades: the cascade as given (see DispatchCascade), or null. */
  cascade: DispatchCascade | null;
}

/** A dispatch's cascade as the client gave it: validated again with each destination's substitutions. */
export interface DispatchCascade {
  /** The cascade's common fields (the dispatch's message fields but channelType, senderName and content). */
  readonly fields: Record<string, unknown>;
  /** The steps, with their {placeholders}. */
  readonly steps: readonly Record<string, unknown>[];
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
    cascade: DispatchCascade | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO dispatches (account_id, id, name, created_at, message, speed, speed_ms, traffic_center_id,
       sending_method, currency, cascade)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
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
      d.cascade === null ? null : JSON.stringify(d.cascade),
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

/**
 * The stored statuses of dispatches, locked FOR SHARE: the transaction that records a step of a dispatch's cascade
 * (which holds the step's message and its cascade) reads whether the dispatch is paused or stopped, and a pause or
 * stop (FOR UPDATE) waits for it to commit, or it waits for the pause or stop. Dispatches are locked after
 * messages and cascades here: a pause or stop holds its dispatch's row alone (see changeDispatch).
 */
export async function dispatchStatusesShared(
  tx: Queryable,
  keys: readonly { accountId: number; id: string }[],
): Promise<Map<string, StoredStatus>> {
  if (keys.length === 0) return new Map();
  const rows = await tx.query<{ id: string; status: StoredStatus }>(
    `SELECT d.id, d.status FROM dispatches d
     JOIN unnest($1::bigint[], $2::uuid[]) AS k(account_id, id) ON d.account_id = k.account_id AND d.id = k.id
     ORDER BY d.account_id, d.id
     FOR SHARE OF d`,
    [keys.map((k) => k.accountId), keys.map((k) => k.id)],
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** What cascades of dispatches ask of dispatches/ (cascades/dispatchStatuses.ts). */
export const dispatchStatuses: DispatchStatuses = { readShared: dispatchStatusesShared };

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

/** The ids of an account's dispatches that match, newest first (a filter on a status read from the messages). */
export async function dispatchIds(db: Queryable, accountId: number, f: DispatchFilter): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM dispatches WHERE ${WHERE} ORDER BY created_at DESC, id DESC`,
    [accountId, f.createdFrom, f.createdTo, f.statuses, f.id, f.name, f.trafficCenterId],
  );
  return rows.map((r) => r.id);
}

/** An account's dispatches of `ids`, in that order (those that exist). */
export async function dispatchGetMany(
  db: Queryable,
  accountId: number,
  ids: readonly string[],
): Promise<DispatchRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<DispatchRow>('SELECT * FROM dispatches WHERE account_id = $1 AND id = ANY($2::uuid[])', [
    accountId,
    ids,
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
