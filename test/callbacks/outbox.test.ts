import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackEventInsert, EVENT_COLUMNS } from '../../src/callbacks/eventSql.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { insertAccount, insertCallbackTarget, insertMessage } from '../factories/rows.js';

/**
 * The outbox's contract is a type (EventColumns): every statement that raises events fills each of its columns.
 * This checks that the type names every column of callback_events that has no default, besides the lane, which
 * follows from the message, so a column added to the table without a place in the type fails here.
 */
describe.each(ENGINES)('the callback outbox (%s)', (engine) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(engine);
  });
  afterAll(async () => testDb?.drop());

  it('has a field in EventColumns for every column of callback_events a writer must fill', async () => {
    const columns = await testDb.db.query<{ column_name: string; column_default: string | null; is_identity: string }>(
      `SELECT column_name, column_default, is_identity FROM information_schema.columns
       WHERE table_name = 'callback_events' AND table_schema = current_schema()`,
    );
    const toFill = columns
      .filter((c) => c.column_default === null && c.is_identity !== 'YES' && c.column_name !== 'lane')
      .map((c) => c.column_name)
      .sort();
    expect(Object.values(EVENT_COLUMNS).sort()).toEqual(toFill);
  });

  it('writes one event with every field, in its message lane', async () => {
    const account = await insertAccount(testDb.db);
    const target = await insertCallbackTarget(testDb.db, account.id, 'https://example.com/hook');
    const message = await insertMessage(testDb.db, { accountId: account.id, callbackTargetId: target });
    const at = new Date('2026-03-10T09:00:00Z');
    await callbackEventInsert(testDb.db, {
      targetId: target,
      accountId: account.id,
      messageId: message,
      event: 'inbound_sent',
      channelType: 'WHATSAPP',
      status: 'inbound_sent',
      at,
      errorCode: null,
      extra: { item: { id: message } },
    });
    const rows = await testDb.db.query<Record<string, unknown>>(
      `SELECT target_id, account_id, message_id, event, channel_type, status, at, error_code, extra,
         lane = get_byte(uuid_send(message_id), 15) % 16 AS in_its_lane
       FROM callback_events WHERE message_id = $1`,
      [message],
    );
    expect(rows).toEqual([
      {
        target_id: target,
        account_id: account.id,
        message_id: message,
        event: 'inbound_sent',
        channel_type: 'WHATSAPP',
        status: 'inbound_sent',
        at,
        error_code: null,
        extra: { item: { id: message } },
        in_its_lane: true,
      },
    ]);
  });
});
