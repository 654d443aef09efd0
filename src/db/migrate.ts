import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any fixed number works; it only has to be the same in every Herald process sharing a database.
const MIGRATION_LOCK_KEY = 7_311_400_523;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Reads `migrations/NNNN_name.sql` in version order. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/** Thrown when the database holds migrations this code does not know: a newer Herald has run on it. */
export class NewerSchemaError extends Error {}

/**
 * Refuses to run against a schema that a newer Herald has migrated: an old process would read and write tables
 * whose meaning changed under it. The operator rolls the newer version out everywhere, or restores a backup.
 */
async function refuseNewerSchema(db: Db, migrations: readonly Migration[]): Promise<void> {
  const [table] = await db.query<{ exists: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`);
  if (!table?.exists) return;
  const known = new Set(migrations.map((m) => m.version));
  const recorded = await db.query<{ version: number; name: string }>(
    'SELECT version, name FROM schema_migrations ORDER BY version',
  );
  const unknown = recorded.filter((r) => !known.has(r.version));
  if (unknown.length === 0) return;
  const newest = Math.max(...known);
  const names = unknown.map((r) => `${String(r.version).padStart(4, '0')}_${r.name}`).join(', ');
  throw new NewerSchemaError(
    `the database has migrations this Herald does not know (${names}; ` +
      `this version knows up to ${String(newest).padStart(4, '0')}): a newer Herald has migrated it; ` +
      `run that version, or restore a backup`,
  );
}

/**
 * Applies pending migrations, each in its own transaction that first takes a transaction-scoped advisory lock
 * and records itself, so that processes starting together apply each migration exactly once: a second process
 * waits on the lock, then sees the version recorded and skips it. Returns the versions this call applied.
 */
export async function migrate(db: Db, migrations: Migration[] = loadMigrations()): Promise<number[]> {
  await refuseNewerSchema(db, migrations);
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const recorded = await tx.query<{ version: number }>(
        'INSERT INTO schema_migrations (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING ' +
          'RETURNING version',
        [migration.version, migration.name],
      );
      if (recorded.length === 0) return false;
      await tx.exec(migration.sql);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
