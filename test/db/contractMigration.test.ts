import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { destinationPartitionOf } from '../../src/messages/messagePartitions.js';
import { messageList } from '../../src/messages/messageLookupSql.js';
import { uuid7, uuidBound } from '../../src/util/uuid7.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';
import { messageFilter } from '../helpers/messageFilter.js';

const MESSAGE = '019cd6f9-7a80-7121-b48d-fc5a90434664';
const DAY = '2026-03-01';

describe.each(ENGINES)('migration 0008 on data of an earlier version (%s)', (engine) => {
  it('keeps the newest conversion of a message, marks rolled-up days dirty, adds default centers', async () => {
    const testDb = await openTestDb(engine, { migrated: false });
    const { db } = testDb;
    try {
      await migrate(
        db,
        loadMigrations().filter((m) => m.version < 8),
      );
      const account = async (name: string): Promise<number> => {
        const [row] = await db.query<{ id: number }>(
          `INSERT INTO accounts (name, currency, callback_secret, created_at, updated_at)
           VALUES ($1, 'RUB', 's', now(), now()) RETURNING id`,
          [name],
        );
        return row!.id;
      };
      const lazy = await account('never listed its centers');
      const listed = await account('listed its centers');
      await db.query(
        `INSERT INTO traffic_centers (account_id, name, is_default, created_at, updated_at)
         VALUES ($1, 'Main', true, now(), now())`,
        [listed],
      );
      await db.query(
        `INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, content, total_parts,
           status, status_at)
         VALUES ($1, $2, $3, 'FLASHCALL', 'x', '79161234567', '"1234"', 1, 'delivered', $3)`,
        [lazy, MESSAGE, `${DAY}T10:00:00Z`],
      );
      await db.query(`INSERT INTO stats_rollup_state (rolled_until) VALUES ('2026-03-05')`);
      const reports = [
        ['NUMBER_VERIFIED', '10:01'],
        ['WRONG_CODE', '10:03'],
        ['NUMBER_VERIFIED', '10:02'],
      ];
      for (const [result, at] of reports) {
        await db.query(
          'INSERT INTO flashcall_conversions (account_id, message_id, result, created_at) VALUES ($1, $2, $3, $4)',
          [lazy, MESSAGE, result, `${DAY}T${at}:00Z`],
        );
      }

      const later = loadMigrations()
        .filter((m) => m.version >= 8)
        .map((m) => m.version);
      expect(await migrate(db)).toEqual(later);

      expect(await db.query('SELECT result FROM flashcall_conversions')).toEqual([{ result: 'WRONG_CODE' }]);
      const dirty = await db.query(
        "SELECT to_char(day, 'YYYY-MM-DD') AS day FROM stats_dirty_days WHERE account_id = $1",
        [lazy],
      );
      expect(dirty).toEqual([{ day: DAY }]);
      const centers = await db.query(
        'SELECT account_id, name FROM traffic_centers WHERE is_default ORDER BY account_id',
      );
      expect(centers).toEqual([
        { account_id: lazy, name: 'Default' },
        { account_id: listed, name: 'Main' },
      ]);
      // One conversion per message from now on.
      const again = db.query(
        `INSERT INTO flashcall_conversions (account_id, message_id, result, created_at)
         VALUES ($1, $2, 'WRONG_CODE', now())`,
        [lazy, MESSAGE],
      );
      await expect(again).rejects.toThrow(/duplicate key|unique/);
    } finally {
      await testDb.drop();
    }
  });
});

describe.each(ENGINES)('migration 0057 on messages stored before it (%s)', (engine) => {
  it('gives every stored message its destination, in the partition matching its own; the list finds them', async () => {
    const testDb = await openTestDb(engine, { migrated: false });
    const { db } = testDb;
    try {
      await migrate(
        db,
        loadMigrations().filter((m) => m.version < 57),
      );
      const [account] = await db.query<{ id: number }>(
        `INSERT INTO accounts (name, currency, callback_secret, created_at, updated_at)
         VALUES ('stored before', 'RUB', 's', now(), now()) RETURNING id`,
      );
      // A week partition (as the maintenance of before made it), and messages in it, in the table of before
      // partitioning and in DEFAULT.
      const week = ['2040-01-02', '2040-01-09'].map((day) => uuidBound(Date.parse(day), 'low'));
      await db.exec(
        `CREATE TABLE messages_p20400102 PARTITION OF messages FOR VALUES FROM ('${week[0]}') TO ('${week[1]}')`,
      );
      const stored = {
        legacy: uuid7(Date.parse('2026-03-01T10:00:00Z')),
        week: uuid7(Date.parse('2040-01-03T10:00:00Z')),
        fallback: uuid7(Date.parse('2045-06-01T10:00:00Z')),
      };
      for (const id of Object.values(stored))
        await db.query(
          `INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, content,
             total_parts, status, status_at)
           VALUES ($1, $2, now(), 'SMS', 'x', '79161234567', '"hi"', 1, 'delivered', now())`,
          [account!.id, id],
        );

      await migrate(db);

      const partitionOf = async (table: string, id: string): Promise<string | undefined> =>
        (
          await db.query<{ name: string }>(`SELECT tableoid::regclass::text AS name FROM ${table} WHERE id = $1`, [id])
        )[0]?.name;
      for (const id of Object.values(stored))
        expect(await partitionOf('message_destinations', id)).toBe(
          destinationPartitionOf((await partitionOf('messages', id))!),
        );
      expect(await partitionOf('message_destinations', stored.week)).toBe('message_destinations_p20400102');
      const found = await messageList(db, account!.id, messageFilter({ destination: '79161234567' }), 'asc', 10, 0);
      expect(found.map((m) => m.id)).toEqual([stored.legacy, stored.week, stored.fallback]);
      const [index] = await db.query<{ n: number }>(
        // This test's schema only: a test migrating another schema meanwhile has the index for a moment.
        `SELECT count(*)::int AS n FROM pg_class
         WHERE relname = 'messages_destination' AND relnamespace = current_schema()::regnamespace`,
      );
      expect(index!.n).toBe(0);
    } finally {
      await testDb.drop();
    }
  });
});
