import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/connectionErrors.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';

describe.each(ENGINES)('which database errors are answered 503 5031 (%s)', (engine) => {
  it('a write refused as read-only (a standby, during a failover) is "unavailable", a wrong query is not', async () => {
    const testDb = await openTestDb(engine);
    try {
      // A read-only transaction refuses a write the way a standby does: SQLSTATE 25006.
      const readOnly = await testDb.db
        .transaction(async (tx) => {
          await tx.exec('SET TRANSACTION READ ONLY');
          await tx.query('INSERT INTO accounts (name) VALUES ($1)', ['read-only']);
        })
        .catch((error: unknown) => error);
      expect(readOnly).toMatchObject({ code: '25006' });
      expect(isDatabaseUnavailable(readOnly)).toBe(true);

      const wrong = await testDb.db.query('SELECT no_such_column FROM accounts').catch((error: unknown) => error);
      expect(wrong).toMatchObject({ code: '42703' });
      expect(isDatabaseUnavailable(wrong)).toBe(false);
    } finally {
      await testDb.drop();
    }
  });
});
