import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransactionConflict } from '../../src/db/connectionErrors.js';
import { messageCount } from '../../src/messages/messageSql.js';
import { ENGINES } from '../helpers/engines.js';
import { messagesTrigger, triggerFunctionSql } from '../helpers/triggers.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/**
 * A transaction PostgreSQL rolls back because of another one: a deadlock (an operator's DDL on messages while Herald
 * runs met its statements so in a test), a serialization failure. Nothing was written and the request can be tried
 * again at once: 503 5031 with Retry-After, never a 500.
 */
describe.each(ENGINES)('a send rolled back by a conflict (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  // The insert of messages fails with the SQLSTATE given, or passes with none.
  const refuseWith = (code: string | null): string =>
    triggerFunctionSql(
      'refuse_insert',
      code === null ? '' : `RAISE EXCEPTION 'rolled back by the test' USING ERRCODE = '${code}';`,
    );

  beforeAll(async () => {
    t = await startTestHerald(engine, { prepare: messagesTrigger('refuse_insert', 'BEFORE INSERT') });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const send = () => t.call('POST', '/api/v1/message', { token: account.traffic, body: [message('SMS')] });

  it.each([
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('%s is answered 503 5031 with Retry-After, and the same request goes when tried again', async (_name, code) => {
    const before = await messageCount(t.testDb.db, account.id);
    await t.testDb.db.query(refuseWith(code));
    const refused = await send();
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: { code: 5031, msg: 'Service temporarily unavailable' } });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await messageCount(t.testDb.db, account.id)).toBe(before);

    await t.testDb.db.query(refuseWith(null));
    const retried = await send();
    expect(retried.status).toBe(200);
    expect(await messageCount(t.testDb.db, account.id)).toBe(before + 1);
  });

  it('is told apart from a wrong statement, which stays an internal error', async () => {
    const error = await t.testDb.db
      .query(refuseWith('40P01'))
      .then(() => t.testDb.db.query('INSERT INTO messages (account_id) VALUES (0)').catch((e: unknown) => e));
    await t.testDb.db.query(refuseWith(null));
    expect(isTransactionConflict(error)).toBe(true);
    const wrong = await t.testDb.db.query('SELECT no_such_column FROM messages').catch((e: unknown) => e);
    expect(isTransactionConflict(wrong)).toBe(false);
  });
});
