import { mkdirSync } from 'node:fs';
import type { Db } from './db.js';
import { openPglite } from './pgliteDb.js';
import { openPostgres } from './postgresDb.js';

/** Where the databases are (config/config.ts documents each setting). */
export interface DbSettings {
  readonly databaseUrl: string | undefined;
  readonly listenDatabaseUrl: string | undefined;
  readonly readDatabaseUrl: string | undefined;
  readonly dataDir: string;
  readonly dbPoolSize: number;
  readonly dbIdleSeconds: number;
  readonly dbPreparedStatements: boolean;
}

/** What every pool of a process takes from the configuration. */
const poolSettings = (config: DbSettings) => ({
  poolSize: config.dbPoolSize,
  idleMs: config.dbIdleSeconds * 1000,
  preparedStatements: config.dbPreparedStatements,
});

/** Opens PostgreSQL when `DATABASE_URL` is set, else the embedded PGlite database in the data folder. */
export async function openDb(config: DbSettings, onError?: (error: Error) => void): Promise<Db> {
  if (config.databaseUrl) {
    return openPostgres({
      url: config.databaseUrl,
      ...poolSettings(config),
      ...(config.listenDatabaseUrl ? { listenUrl: config.listenDatabaseUrl } : {}),
      ...(onError ? { onError } : {}),
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return openPglite(config.dataDir);
}

/** The read replica's pool (`HERALD_READ_DATABASE_URL`, as large as the primary's), or undefined without one. */
export function openReadDb(config: DbSettings, onError?: (error: Error) => void): Db | undefined {
  if (!config.readDatabaseUrl) return undefined;
  return openPostgres({ url: config.readDatabaseUrl, ...poolSettings(config), ...(onError ? { onError } : {}) });
}
