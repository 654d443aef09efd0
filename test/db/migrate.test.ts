import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgresDb.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';

describe.each(ENGINES)('migrations (%s)', (engine) => {
  it('applies every migration once and records it', async () => {
    const testDb = await openTestDb(engine, { migrated: false });
    try {
      const all = loadMigrations().map((m) => m.version);
      expect(await migrate(testDb.db)).toEqual(all);
      expect(await migrate(testDb.db)).toEqual([]);
      const rows = await testDb.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(all);
    } finally {
      await testDb.drop();
    }
  });

  it('applies each migration exactly once when several processes start together', async () => {
    const testDb = await openTestDb(engine, { migrated: false });
    // Separate pools stand for separate processes; PGlite has one connection, so it races itself.
    const others =
      engine === 'postgres'
        ? Array.from({ length: 3 }, () => openPostgres({ url: testDb.url!, poolSize: 2, schema: testDb.schema! }))
        : [testDb.db, testDb.db, testDb.db];
    try {
      const results = await Promise.all([migrate(testDb.db), ...others.map((db) => migrate(db))]);
      const applied = results.flat().sort((a, b) => a - b);
      expect(applied).toEqual(loadMigrations().map((m) => m.version));
    } finally {
      if (engine === 'postgres') await Promise.all(others.map((db) => db.close()));
      await testDb.drop();
    }
  });

  it('rolls back a failing migration whole and leaves it unrecorded', async () => {
    const testDb = await openTestDb(engine);
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-migrations-'));
    writeFileSync(path.join(dir, '0900_broken.sql'), 'CREATE TABLE half_done (id int);\nSELECT no_such_function();');
    try {
      await expect(migrate(testDb.db, [...loadMigrations(), ...loadMigrations(dir)])).rejects.toThrow(
        /no_such_function/,
      );
      const recorded = await testDb.db.query('SELECT 1 FROM schema_migrations WHERE version = 900');
      expect(recorded).toHaveLength(0);
      const table = await testDb.db.query("SELECT 1 FROM pg_tables WHERE tablename = 'half_done'");
      expect(table).toHaveLength(0);
      // The connection is usable afterwards (PGlite has only one).
      expect(await testDb.db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await testDb.drop();
    }
  });

  it('refuses a schema a newer Herald migrated, naming what it does not know, and changes nothing', async () => {
    const testDb = await openTestDb(engine);
    try {
      await testDb.db.query(`INSERT INTO schema_migrations (version, name) VALUES (9001, 'from_the_future')`);
      const known = loadMigrations();
      const newest = String(known.at(-1)!.version).padStart(4, '0');
      await expect(migrate(testDb.db, known)).rejects.toThrow(
        `the database has migrations this Herald does not know (9001_from_the_future; ` +
          `this version knows up to ${newest}): ` +
          'a newer Herald has migrated it; run that version, or restore a backup',
      );
      // An older code base (without the last migration) is refused the same way, before it applies anything.
      await testDb.db.query(`DELETE FROM schema_migrations WHERE version = 9001`);
      await expect(migrate(testDb.db, known.slice(0, -1))).rejects.toThrow(`(${newest}_${known.at(-1)!.name};`);
    } finally {
      await testDb.drop();
    }
  });

  it('returns int8 as numbers and numeric as strings on both engines', async () => {
    const testDb = await openTestDb(engine, { migrated: false });
    try {
      const [row] = await testDb.db.query<{ big: unknown; money: unknown; n: unknown }>(
        'SELECT 9007199254740991::int8 AS big, 1.5::numeric(20, 6) AS money, count(*) AS n FROM (VALUES (1), (2)) v(x)',
      );
      expect(row).toEqual({ big: 9007199254740991, money: '1.500000', n: 2 });
    } finally {
      await testDb.drop();
    }
  });
});
