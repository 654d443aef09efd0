import type { Queryable } from '../db/db.js';
import { type CountKey, type KeyState, splitKey } from './pumping.js';

/*
 * The statements on fraud_counts and fraud_holds (fraud/ owns both; migration 0047). Keys travel as two arrays,
 * kinds and keys, expanded by unnest: a batch is one statement whatever its size.
 */

const HOUR_MS = 3_600_000;

/** The start of the UTC hour of `at`: the bucket its messages count in. */
export const hourOf = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

function unzip(keys: readonly CountKey[]): [string[], string[]] {
  const parts = keys.map(splitKey);
  return [parts.map((p) => p.kind), parts.map((p) => p.key)];
}

/**
 * What the database knows of each key: the sliding hour's buckets, the 7-day baseline and proofs (one range scan of
 * the key's rows), its open hold and whether a release trusts it still. The account's open and trusted holds (almost
 * always none) are read once for the batch, not probed per key.
 */
export async function pumpingStates(
  db: Queryable,
  accountId: number,
  keys: readonly CountKey[],
  now: Date,
): Promise<Map<CountKey, KeyState>> {
  const [kinds, names] = unzip(keys);
  const hour = hourOf(now);
  const rows = await db.query<{
    kind: string;
    key: string;
    current: number;
    previous: number;
    baseline: number;
    proofs: number;
    open_hold: number | null;
    trusted: boolean;
  }>(
    `WITH holds AS MATERIALIZED (
       SELECT kind, key, id, false AS trusted FROM fraud_holds WHERE account_id = $1 AND status = 'open'
       UNION ALL
       SELECT kind, key, NULL, true FROM fraud_holds WHERE account_id = $1 AND trusted_until > $5
     )
     SELECT k.kind, k.key, coalesce(c.current, 0)::int AS current, coalesce(c.previous, 0)::int AS previous,
       coalesce(c.baseline, 0)::int AS baseline, coalesce(c.proofs, 0)::int AS proofs,
       (SELECT h.id::int FROM holds h WHERE h.kind = k.kind AND h.key = k.key AND NOT h.trusted) AS open_hold,
       EXISTS (SELECT 1 FROM holds h WHERE h.kind = k.kind AND h.key = k.key AND h.trusted) AS trusted
     FROM unnest($2::text[], $3::text[]) AS k(kind, key)
     LEFT JOIN LATERAL (
       SELECT sum(sent) FILTER (WHERE hour = $4) AS current,
         sum(sent) FILTER (WHERE hour = $4 - interval '1 hour') AS previous,
         max(sent) FILTER (WHERE hour < $4 - interval '1 hour') AS baseline,
         sum(proofs) AS proofs
       FROM fraud_counts
       WHERE account_id = $1 AND kind = k.kind AND key = k.key AND hour >= $4 - interval '7 days'
     ) c ON true`,
    [accountId, kinds, names, hour, now],
  );
  return new Map(
    rows.map((r) => [
      `${r.kind}:${r.key}` as CountKey,
      {
        current: r.current,
        previous: r.previous,
        baseline: r.baseline,
        proofs: r.proofs,
        openHold: r.open_hold,
        trusted: r.trusted,
      },
    ]),
  );
}

/**
 * Adds messages that went (`sent`) or proofs of real traffic (`proofs`) to the keys' buckets of `now`'s hour (a
 * negative count takes back), in key order. Returns each key's bucket as it is now.
 */
export async function pumpingCount(
  tx: Queryable,
  accountId: number,
  counts: ReadonlyMap<CountKey, number>,
  column: 'sent' | 'proofs',
  now: Date,
): Promise<Map<CountKey, number>> {
  if (counts.size === 0) return new Map();
  const keys = [...counts.keys()].sort();
  const [kinds, names] = unzip(keys);
  const rows = await tx.query<{ kind: string; key: string; n: number }>(
    `INSERT INTO fraud_counts AS c (account_id, kind, key, hour, ${column})
     SELECT $1, kind, key, $5, n FROM unnest($2::text[], $3::text[], $4::int[]) AS x(kind, key, n)
     ON CONFLICT (account_id, kind, key, hour) DO UPDATE SET ${column} = c.${column} + excluded.${column}
     RETURNING c.kind, c.key, c.${column} AS n`,
    [accountId, kinds, names, keys.map((k) => counts.get(k)!), hourOf(now)],
  );
  return new Map(rows.map((r) => [`${r.kind}:${r.key}` as CountKey, r.n]));
}

/**
 * Adds held messages to their keys' open holds, opening those not open yet. Returns each key's hold id and whether
 * this statement opened it.
 */
export async function pumpingHoldsAdd(
  tx: Queryable,
  accountId: number,
  holds: ReadonlyMap<CountKey, { messages: number; allowance: number }>,
  now: Date,
): Promise<Map<CountKey, { id: number; opened: boolean }>> {
  if (holds.size === 0) return new Map();
  const [kinds, names] = unzip([...holds.keys()]);
  const values = [...holds.values()];
  const rows = await tx.query<{ id: number; kind: string; key: string; opened: boolean }>(
    `INSERT INTO fraud_holds AS h (account_id, kind, key, messages, allowance, first_at, last_at)
     SELECT $1, kind, key, n, a, $6, $6 FROM unnest($2::text[], $3::text[], $4::int[], $5::int[]) AS x(kind, key, n, a)
     ON CONFLICT (account_id, kind, key) WHERE status = 'open'
     DO UPDATE SET messages = h.messages + excluded.messages, last_at = excluded.last_at
     RETURNING h.id::int AS id, h.kind, h.key, (h.xmax = 0) AS opened`,
    [accountId, kinds, names, values.map((v) => v.messages), values.map((v) => v.allowance), now],
  );
  return new Map(rows.map((r) => [`${r.kind}:${r.key}` as CountKey, { id: r.id, opened: r.opened }]));
}

export const HOLD_STATUSES = ['open', 'released', 'rejected'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

export interface HoldRow {
  id: number;
  account_id: number;
  kind: 'range' | 'country';
  key: string;
  status: HoldStatus;
  messages: number;
  allowance: number;
  first_at: Date;
  last_at: Date;
  decided_at: Date | null;
  trusted_until: Date | null;
}

const HOLD_COLUMNS = `id::int AS id, account_id::int AS account_id, kind, key, status, messages, allowance, first_at,
  last_at, decided_at, trusted_until`;

/** Holds by status (open ones are the operator's queue), oldest first, a page at a time, with their total. */
export async function holdList(
  db: Queryable,
  filter: { status: HoldStatus; accountId: number | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: HoldRow[]; total: number }> {
  const where = 'status = $1 AND ($2::bigint IS NULL OR account_id = $2)';
  const params = [filter.status, filter.accountId ?? null];
  const rows = await db.query<HoldRow>(
    `SELECT ${HOLD_COLUMNS} FROM fraud_holds WHERE ${where} ORDER BY first_at, id LIMIT $3 OFFSET $4`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM fraud_holds WHERE ${where}`, params);
  return { rows, total: count!.n };
}

export async function holdGet(db: Queryable, id: number): Promise<HoldRow | undefined> {
  const [row] = await db.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM fraud_holds WHERE id = $1`, [id]);
  return row;
}

/**
 * Decides an open hold (locked until the transaction ends, so that a decision and a batch adding to the hold do not
 * cross); undefined when it is not open (decided already, or no such hold).
 */
export async function holdDecide(
  tx: Queryable,
  id: number,
  decision: { status: 'released' | 'rejected'; trustedUntil: Date | null },
  now: Date,
): Promise<HoldRow | undefined> {
  const [row] = await tx.query<HoldRow>(
    `UPDATE fraud_holds SET status = $2, decided_at = $3, trusted_until = $4
     WHERE id = $1 AND status = 'open'
     RETURNING ${HOLD_COLUMNS}`,
    [id, decision.status, now, decision.trustedUntil],
  );
  return row;
}

/** Deletes the counts of hours before `before` (the baseline reads 7 days back). Returns how many. */
export async function pumpingCountsDeleteBefore(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query('DELETE FROM fraud_counts WHERE hour < $1 RETURNING 1', [before]);
  return rows.length;
}
