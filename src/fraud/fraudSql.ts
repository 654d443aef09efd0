import type { Queryable } from '../db/db.js';
import { type CountKey, splitKey } from './pumping.js';

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

/** A key's open hold and whether a release trusts it still (pumping.ts KeyState's two fields of holds). */
export interface KeyHold {
  readonly openHold: number | null;
  readonly trusted: boolean;
}

/**
 * The account's open holds and the keys a release trusts still (almost always none): one read of its holds by index,
 * whatever the batch's keys.
 */
export async function pumpingHolds(db: Queryable, accountId: number, now: Date): Promise<Map<CountKey, KeyHold>> {
  const rows = await db.query<{ kind: string; key: string; open_hold: number | null; trusted: boolean }>(
    `SELECT kind, key, id::int AS open_hold, false AS trusted FROM fraud_holds WHERE account_id = $1 AND status = 'open'
     UNION ALL
     SELECT kind, key, NULL, true FROM fraud_holds WHERE account_id = $1 AND trusted_until > $2`,
    [accountId, now],
  );
  const holds = new Map<CountKey, KeyHold>();
  for (const r of rows) {
    const key = `${r.kind}:${r.key}` as CountKey;
    const was = holds.get(key);
    holds.set(key, {
      openHold: r.open_hold ?? was?.openHold ?? null,
      trusted: r.trusted || (was?.trusted ?? false),
    });
  }
  return holds;
}

/** A key's counts after a batch was added to its current hour (see {@link pumpingCountBatch}). */
export interface KeyCounts {
  /** This hour's messages, the batch's included. */
  readonly sent: number;
  readonly previous: number;
  readonly baseline: number;
  readonly proofs: number;
}

/**
 * Adds a batch's messages to the keys' buckets of `now`'s hour, locking their rows in key order until the
 * transaction ends (a batch to the same key waits for this one's commit, and then counts on what it left), and
 * returns the counts of the keys that may be over their allowance, and of the keys `always` (those with an open hold,
 * whose allowance a new hold records): those whose hour's count with the batch and the previous hour's count exceed
 * their kind's floor, the least allowance there is. The others cannot be over (the
 * sliding count is at most this hour's and the previous one's), so neither their history nor their rows come back:
 * a mailing spread over the plan reads nothing (one statement that returned the 1000 keys' histories and counts
 * cost 2.4 ms of PostgreSQL and a parse of 1000 rows in the api process per batch). For the keys that come back,
 * the previous hour's count, the baseline (the highest hourly count over the 7 days before it) and the proofs of
 * those 7 days and this hour, by one range scan of the key's rows.
 */
export async function pumpingCountBatch(
  tx: Queryable,
  accountId: number,
  counts: ReadonlyMap<CountKey, number>,
  floors: { readonly range: number; readonly country: number },
  always: readonly CountKey[],
  now: Date,
): Promise<Map<CountKey, KeyCounts>> {
  if (counts.size === 0) return new Map();
  const keys = [...counts.keys()].sort();
  const [kinds, names] = unzip(keys);
  const rows = await tx.query<{
    kind: string;
    key: string;
    sent: number;
    previous: number;
    baseline: number;
    proofs: number;
  }>(
    `WITH counted AS (
       INSERT INTO fraud_counts AS c (account_id, kind, key, hour, sent)
       SELECT $1, kind, key, $5, n FROM unnest($2::text[], $3::text[], $4::int[]) AS x (kind, key, n)
       ON CONFLICT (account_id, kind, key, hour) DO UPDATE SET sent = c.sent + excluded.sent
       RETURNING c.kind, c.key, c.sent
     ), near AS (
       SELECT k.kind, k.key, k.sent
       FROM counted k
       LEFT JOIN fraud_counts p
         ON p.account_id = $1 AND p.kind = k.kind AND p.key = k.key AND p.hour = $5 - interval '1 hour'
       WHERE k.sent + coalesce(p.sent, 0) > CASE k.kind WHEN 'range' THEN $6::int ELSE $7::int END
         OR k.kind || ':' || k.key = ANY($8::text[])
     )
     SELECT n.kind, n.key, n.sent, coalesce(h.previous, 0)::int AS previous, coalesce(h.baseline, 0)::int AS baseline,
       coalesce(h.proofs, 0)::int AS proofs
     FROM near n
     CROSS JOIN LATERAL (
       SELECT sum(o.sent) FILTER (WHERE o.hour = $5 - interval '1 hour') AS previous,
         max(o.sent) FILTER (WHERE o.hour < $5 - interval '1 hour') AS baseline,
         sum(o.proofs) AS proofs
       FROM fraud_counts o
       WHERE o.account_id = $1 AND o.kind = n.kind AND o.key = n.key AND o.hour >= $5 - interval '7 days'
     ) h`,
    [accountId, kinds, names, keys.map((k) => counts.get(k)!), hourOf(now), floors.range, floors.country, always],
  );
  return new Map(
    rows.map((r) => [
      `${r.kind}:${r.key}` as CountKey,
      { sent: r.sent, previous: r.previous, baseline: r.baseline, proofs: r.proofs },
    ]),
  );
}

/**
 * Adds messages that went (`sent`) or proofs of real traffic (`proofs`) to the keys' buckets of `now`'s hour (a
 * negative count takes back), in key order.
 */
export async function pumpingCount(
  tx: Queryable,
  accountId: number,
  counts: ReadonlyMap<CountKey, number>,
  column: 'sent' | 'proofs',
  now: Date,
): Promise<void> {
  if (counts.size === 0) return;
  const keys = [...counts.keys()].sort();
  const [kinds, names] = unzip(keys);
  await tx.query(
    `INSERT INTO fraud_counts AS c (account_id, kind, key, hour, ${column})
     SELECT $1, kind, key, $5, n FROM unnest($2::text[], $3::text[], $4::int[]) AS x(kind, key, n)
     ON CONFLICT (account_id, kind, key, hour) DO UPDATE SET ${column} = c.${column} + excluded.${column}`,
    [accountId, kinds, names, keys.map((k) => counts.get(k)!), hourOf(now)],
  );
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
  // In key order, as the counts: two batches adding to the same holds never wait for each other crosswise.
  const keys = [...holds.keys()].sort();
  const [kinds, names] = unzip(keys);
  const values = keys.map((k) => holds.get(k)!);
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
