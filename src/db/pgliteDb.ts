import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';

/**
 * A {@link Db} over PGlite, the embedded PostgreSQL. `dataDir` is a folder, or `memory://` for tests.
 * PGlite has one connection; its own mutex serialises statements and transactions.
 */
export async function openPglite(dataDir: string): Promise<Db> {
  const pglite = await PGlite.create(dataDir);

  const on = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await target.query<R>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
  });

  return {
    engine: 'pglite',
    ...on(pglite),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => pglite.transaction((tx) => fn(on(tx))),
    async close(): Promise<void> {
      await pglite.close();
    },
  };
}
