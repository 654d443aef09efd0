import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pgliteDb.js';
import { openPostgres } from '../../src/db/postgresDb.js';

export type Engine = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const ENGINES: readonly Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestDb {
  readonly db: Db;
  readonly engine: Engine;
  /** The PostgreSQL URL and schema of this database (postgres only), for other processes or pools. */
  readonly url?: string;
  readonly schema?: string;
  /** Closes the database and drops its schema. */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database: an in-memory PGlite, or a new schema on the PostgreSQL server that only this
 * database's connections see (search_path), dropped afterwards.
 */
export async function openTestDb(engine: Engine, options: { migrated?: boolean; url?: string } = {}): Promise<TestDb> {
  let testDb: TestDb;
  if (engine === 'pglite') {
    const db = await openPglite('memory://');
    testDb = { db, engine, drop: () => db.close() };
  } else {
    const url = options.url ?? process.env.TEST_DATABASE_URL!;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    await adminQuery(url, `CREATE SCHEMA ${schema}`);
    const db = openPostgres({ url, poolSize: 8, schema });
    testDb = {
      db,
      engine,
      url,
      schema,
      async drop() {
        await db.close();
        await adminQuery(url, `DROP SCHEMA ${schema} CASCADE`);
      },
    };
  }
  if (options.migrated !== false) await migrate(testDb.db);
  return testDb;
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
