import type { Queryable } from '../db/db.js';

export interface ConsentRow {
  id: string;
  number: string;
  sender_name: string | null;
  traffic_type: string | null;
  source: string;
  proof: string | null;
  given_at: Date;
  created_at: Date;
}

export interface NewConsent {
  readonly number: string;
  readonly senderName: string | null;
  readonly trafficType: string | null;
  readonly source: string;
  readonly proof: string | null;
  readonly givenAt: Date;
}

const COLUMNS = 'id::text, number, sender_name, traffic_type, source, proof, given_at, created_at';

export async function consentInsert(db: Queryable, accountId: number, c: NewConsent, now: Date): Promise<ConsentRow> {
  const [row] = await db.query<ConsentRow>(
    `INSERT INTO consents (account_id, number, sender_name, traffic_type, source, proof, given_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [accountId, c.number, c.senderName, c.trafficType, c.source, c.proof, c.givenAt, now],
  );
  return row!;
}

export interface ConsentFilter {
  readonly number?: string | undefined;
  readonly senderName?: string | undefined;
  readonly source?: string | undefined;
}

function where(accountId: number, filter: ConsentFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const parts = ['account_id = $1'];
  for (const [column, value] of [
    ['number', filter.number],
    ['sender_name', filter.senderName],
    ['source', filter.source],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    parts.push(`${column} = $${params.length}`);
  }
  return { sql: parts.join(' AND '), params };
}

/** The account's consents matching the filter, newest first, a page at a time, with their total. */
export async function consentList(
  db: Queryable,
  accountId: number,
  filter: ConsentFilter,
  limit: number,
  offset: number,
): Promise<{ rows: ConsentRow[]; total: number }> {
  const { sql, params } = where(accountId, filter);
  const rows = await db.query<ConsentRow>(
    `SELECT ${COLUMNS} FROM consents WHERE ${sql} ORDER BY id DESC LIMIT $${params.length + 1}
     OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM consents WHERE ${sql}`, params);
  return { rows, total: count!.n };
}

/** The scopes of the account's consents of these numbers given by `now`: one index scan for the batch. */
export async function consentScopesOf(
  db: Queryable,
  accountId: number,
  numbers: readonly string[],
  now: Date,
): Promise<{ number: string; sender_name: string | null; traffic_type: string | null }[]> {
  if (numbers.length === 0) return [];
  return db.query(
    `SELECT DISTINCT number, sender_name, traffic_type FROM consents
     WHERE account_id = $1 AND number = ANY($2::text[]) AND given_at <= $3`,
    [accountId, numbers, now],
  );
}
