import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';

export interface TariffRow {
  id: number;
  account_id: number | null;
  channel_type: Channel;
  prefix: string | null;
  country: string | null;
  price: string;
  currency: string;
  source: 'api' | 'config';
  created_at: Date;
}

const COLUMNS = 'id, account_id, channel_type, prefix, country, price, currency, source, created_at';

export async function tariffInsert(
  db: Queryable,
  t: {
    accountId: number | null;
    channelType: Channel;
    prefix: string | null;
    country: string | null;
    price: number | string;
    currency: string;
    source: 'api' | 'config';
    now: Date;
  },
): Promise<TariffRow> {
  const [row] = await db.query<TariffRow>(
    `INSERT INTO tariffs (account_id, channel_type, prefix, country, price, currency, source, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [t.accountId, t.channelType, t.prefix, t.country, String(t.price), t.currency, t.source, t.now],
  );
  return row!;
}

export async function tariffList(db: Queryable, filter: { accountId?: number | undefined } = {}): Promise<TariffRow[]> {
  return db.query<TariffRow>(
    `SELECT ${COLUMNS} FROM tariffs WHERE ($1::bigint IS NULL OR account_id = $1 OR account_id IS NULL) ORDER BY id`,
    [filter.accountId ?? null],
  );
}

export async function tariffDelete(db: Queryable, id: number): Promise<boolean> {
  return (await db.query('DELETE FROM tariffs WHERE id = $1 RETURNING id', [id])).length > 0;
}

/** Replaces the tariffs that come from the config file, so that the file stays their one source. */
export async function tariffReplaceFromConfig(
  db: Queryable,
  rows: readonly Omit<Parameters<typeof tariffInsert>[1], 'source'>[],
): Promise<void> {
  await db.query("DELETE FROM tariffs WHERE source = 'config'");
  for (const row of rows) await tariffInsert(db, { ...row, source: 'config' });
}
