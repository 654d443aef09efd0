import { isUniqueViolation } from '../db/connectionErrors.js';
import type { Db, Queryable } from '../db/db.js';
import type { PortedRow } from './portingCsv.js';

/** An import's states (migration 0050). */
export const MNP_IMPORT_STATES = ['receiving', 'loading', 'indexing', 'done', 'failed'] as const;
export type MnpImportState = (typeof MNP_IMPORT_STATES)[number];

/** An import as stored. */
export interface MnpImport {
  readonly id: number;
  readonly state: MnpImportState;
  readonly bytes: number;
  readonly rows: number;
  readonly loaded: number;
  readonly errorCount: number;
  readonly duplicates: number;
  readonly errors: { line: number; msg: string }[];
  readonly failure: string | null;
  readonly startedAt: Date;
  readonly progressAt: Date;
  readonly finishedAt: Date | null;
}

/** What a step of a running import records: its counts so far, and its state when it moves on. */
export interface MnpImportProgress {
  readonly state?: MnpImportState;
  readonly bytes?: number;
  readonly rows?: number;
  readonly loaded?: number;
  readonly errorCount?: number;
  readonly errors?: readonly { line: number; msg: string }[];
}

const COLUMNS = `id, state, bytes, rows, loaded, error_count AS "errorCount", duplicates, errors, failure,
  started_at AS "startedAt", progress_at AS "progressAt", finished_at AS "finishedAt"`;

/** The table an import loads: its own until the swap makes it mnp_numbers. */
export function mnpImportTable(id: number): string {
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`not an import id: ${id}`);
  return `mnp_numbers_${id}`;
}

/**
 * Starts an import: an import still running whose progress stood still since `staleBefore` (its process stopped) is
 * failed and its table dropped first. Returns the new import's id, or undefined while another import runs.
 */
export async function mnpImportStart(db: Db, now: Date, staleBefore: Date): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const stale = await tx.query<{ id: number }>(
      `UPDATE mnp_imports SET state = 'failed', failure = 'Interrupted: its process stopped', finished_at = $1
       WHERE state IN ('receiving', 'loading', 'indexing') AND progress_at < $2 RETURNING id`,
      [now, staleBefore],
    );
    for (const { id } of stale) await tx.query(`DROP TABLE IF EXISTS ${mnpImportTable(id)}`);
    const rows = await tx.query<{ id: number }>(
      `INSERT INTO mnp_imports (state, started_at, progress_at) VALUES ('receiving', $1, $1)
       ON CONFLICT DO NOTHING RETURNING id`,
      [now],
    );
    return rows[0]?.id;
  });
}

/** An import, if there is one of that id. */
export async function mnpImportGet(db: Queryable, id: number): Promise<MnpImport | undefined> {
  const rows = await db.query<MnpImport>(`SELECT ${COLUMNS} FROM mnp_imports WHERE id = $1`, [id]);
  return rows[0];
}

/** Records a running import's progress (absent fields unchanged). */
export async function mnpImportProgress(db: Queryable, id: number, p: MnpImportProgress, now: Date): Promise<void> {
  await db.query(
    `UPDATE mnp_imports SET state = coalesce($2, state), bytes = coalesce($3, bytes), rows = coalesce($4, rows),
       loaded = coalesce($5, loaded), error_count = coalesce($6, error_count), errors = coalesce($7::jsonb, errors),
       progress_at = $8
     WHERE id = $1`,
    [
      id,
      p.state ?? null,
      p.bytes ?? null,
      p.rows ?? null,
      p.loaded ?? null,
      p.errorCount ?? null,
      p.errors ? JSON.stringify(p.errors) : null,
      now,
    ],
  );
}

/** Fails an import and drops its table: the current base stays as it was. */
export async function mnpImportFail(db: Db, id: number, failure: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`DROP TABLE IF EXISTS ${mnpImportTable(id)}`);
    await tx.query(
      `UPDATE mnp_imports SET state = 'failed', failure = $2, progress_at = $3, finished_at = $3 WHERE id = $1`,
      [id, failure, now],
    );
  });
}

/** Creates an import's table, empty and without its index (built after the load: a third of the time). */
export async function mnpImportTableCreate(db: Queryable, id: number): Promise<void> {
  const table = mnpImportTable(id);
  await db.query(`DROP TABLE IF EXISTS ${table}`);
  await db.query(`CREATE TABLE ${table} (LIKE mnp_numbers INCLUDING DEFAULTS)`);
}

/**
 * The operators' ids, by their OwnerId: added when new, with their brand (or a brand changed since: the mapping of
 * a later Herald), in one statement.
 */
export async function mnpOperatorIds(
  db: Queryable,
  owners: readonly { ownerId: string; brand: string }[],
): Promise<Map<string, number>> {
  if (owners.length === 0) return new Map();
  const rows = await db.query<{ id: number; ownerId: string }>(
    `INSERT INTO mnp_operators (owner_id, brand) SELECT * FROM unnest($1::text[], $2::text[])
     ON CONFLICT (owner_id) DO UPDATE SET brand = excluded.brand
     RETURNING id, owner_id AS "ownerId"`,
    [owners.map((o) => o.ownerId), owners.map((o) => o.brand)],
  );
  return new Map(rows.map((r) => [r.ownerId, r.id]));
}

/** Adds rows to an import's table, in one statement; `operatorIds` gives each row's operator. */
export async function mnpImportRowsAdd(
  db: Queryable,
  id: number,
  rows: readonly PortedRow[],
  operatorIds: ReadonlyMap<string, number>,
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO ${mnpImportTable(id)} (number, operator_id, mnc, route, region_code, ported_at)
     SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::smallint[], $4::text[], $5::smallint[],
       $6::timestamptz[])`,
    [
      rows.map((r) => r.number),
      rows.map((r) => operatorIds.get(r.ownerId)!),
      rows.map((r) => r.mnc),
      rows.map((r) => r.route),
      rows.map((r) => r.regionCode),
      rows.map((r) => r.portedAt),
    ],
  );
}

/**
 * Builds an import's index (its primary key) and its planner statistics. A number the file repeats would break the
 * key: then its rows but the one of the latest port date are removed first (a fresh table nobody reads; the base
 * repeats none). Returns how many rows were removed so.
 */
export async function mnpImportIndex(db: Queryable, id: number): Promise<number> {
  const table = mnpImportTable(id);
  let duplicates = 0;
  try {
    await db.query(`ALTER TABLE ${table} ADD PRIMARY KEY (number)`);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const removed = await db.query(
      `DELETE FROM ${table} WHERE ctid IN (
         SELECT ctid FROM (
           SELECT ctid, row_number() OVER (PARTITION BY number ORDER BY ported_at DESC NULLS LAST) AS n FROM ${table}
         ) AS d WHERE n > 1)
       RETURNING 1`,
    );
    duplicates = removed.length;
    await db.query(`ALTER TABLE ${table} ADD PRIMARY KEY (number)`);
  }
  await db.query(`ANALYZE ${table}`);
  return duplicates;
}

/**
 * How long the swap waits for a lock on mnp_numbers: lookups behind it wait as long, so it gives up and is tried
 * again rather than queue them behind a long transaction that read the base.
 */
export const SWAP_LOCK_TIMEOUT_MS = 500;

/**
 * Makes an import's table the base, in one transaction: the current mnp_numbers is dropped (whole: no row is
 * deleted) and the import's table renamed to it; the import is done. Throws a lock timeout (55P03) when a
 * transaction holding the base kept it past {@link SWAP_LOCK_TIMEOUT_MS}.
 */
export async function mnpImportSwap(db: Db, id: number, duplicates: number, now: Date): Promise<void> {
  const table = mnpImportTable(id);
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL lock_timeout = ${SWAP_LOCK_TIMEOUT_MS}`);
    await tx.query('DROP TABLE mnp_numbers');
    await tx.query(`ALTER TABLE ${table} RENAME TO mnp_numbers`);
    await tx.query(`ALTER INDEX ${table}_pkey RENAME TO mnp_numbers_pkey`);
    await tx.query(
      `UPDATE mnp_imports SET state = 'done', duplicates = $2, progress_at = $3, finished_at = $3 WHERE id = $1`,
      [id, duplicates, now],
    );
  });
}

/** Whether an import was ever done: before, the base is empty and no lookup is needed. */
export async function mnpBaseImported(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ done: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM mnp_imports WHERE state = 'done') AS done`,
  );
  return rows[0]!.done;
}

/** A Russian number as the base keys it: `7` and 10 digits. */
const RUSSIAN = /^7\d{10}$/;

/**
 * The brands of the ported numbers among `destinations` (E.164 digits, `79161234567`): only ported numbers are in
 * the map. One statement, one look-up of the base's index per Russian number (1000 in a few milliseconds).
 */
export async function mnpBrands(db: Queryable, destinations: readonly string[]): Promise<Map<string, string>> {
  const numbers = [...new Set(destinations.filter((d) => RUSSIAN.test(d)))];
  if (numbers.length === 0) return new Map();
  const rows = await db.query<{ number: string; brand: string }>(
    `SELECT n.number::text AS number, o.brand FROM mnp_numbers n JOIN mnp_operators o ON o.id = n.operator_id
     WHERE n.number = ANY($1::bigint[])`,
    [numbers],
  );
  return new Map(rows.map((r) => [r.number, r.brand]));
}
