import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Db } from '../../src/db/db.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pgliteDb.js';
import { openPostgres } from '../../src/db/postgresDb.js';
import { wakeChannel } from '../../src/db/wake.js';

export type Engine = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const ENGINES: readonly Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/** Connections of a PostgreSQL test database's pool. */
export const TEST_POOL_SIZE = 8;

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
 * The server processes listening for a PostgreSQL test database's wake-ups (the last statement each ran was the LISTEN
 * of its schema's channel), oldest first.
 */
export async function listeningPids(testDb: TestDb): Promise<number[]> {
  const rows = await testDb.db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE query = $1 ORDER BY backend_start',
    [`LISTEN "${wakeChannel(testDb.schema!)}"`],
  );
  return rows.map((r) => r.pid);
}

/**
 * A fresh, migrated database: an in-memory PGlite, or a new schema on the PostgreSQL server that only this
 * database's connections see (search_path), dropped afterwards.
 */
export async function openTestDb(engine: Engine, options: { migrated?: boolean; url?: string } = {}): Promise<TestDb> {
  const migrated = options.migrated !== false;
  if (engine === 'pglite') {
    const db = await openPglite('memory://', { loadDataDir: await pgliteImage(migrated) });
    return { db, engine, drop: () => db.close() };
  }
  const url = options.url ?? process.env.TEST_DATABASE_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `CREATE SCHEMA ${schema}`);
  const db = openPostgres({ url, poolSize: TEST_POOL_SIZE, schema });
  if (migrated) await migrate(db);
  return {
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

/**
 * A tarball of a new PGlite database, migrated or not, made once and kept in the system's temporary folder under a
 * name that changes with the migrations: a database started from it takes about 1 s instead of 3-6 s of initdb and
 * migrations, which was most of the PGlite half of the suite (79 databases, 475 s of the workers' time).
 */
const PGLITE_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.resolve('@electric-sql/pglite')), 'utf8'),
).version;
const images = new Map<boolean, Promise<Blob>>();
function pgliteImage(migrated: boolean): Promise<Blob> {
  let image = images.get(migrated);
  if (!image) {
    image = readOrMakeImage(migrated);
    images.set(migrated, image);
  }
  return image;
}

async function readOrMakeImage(migrated: boolean): Promise<Blob> {
  const hash = createHash('sha256').update(`${process.version} ${PGLITE_VERSION}`);
  if (migrated) for (const m of loadMigrations()) hash.update(`${m.version} ${m.name}\n${m.sql}\n`);
  const file = path.join(tmpdir(), `herald-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const db = await openPglite('memory://');
    if (migrated) await migrate(db);
    const image = await db.dumpDataDir!();
    await db.close();
    // Written aside and renamed, so that a test file starting at the same moment reads a whole image or none.
    const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(aside, Buffer.from(await image.arrayBuffer()));
    await rename(aside, file);
    return image;
  }
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

/** Runs `work` on a fresh, migrated database of its own ({@link openTestDb}), dropped afterwards whatever happens. */
export async function withTestDb<T>(engine: Engine, work: (t: TestDb) => Promise<T>): Promise<T> {
  const t = await openTestDb(engine);
  try {
    return await work(t);
  } finally {
    await t.drop();
  }
}
