import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { messageExpireDue } from '../../src/messages/expirySql.js';
import { DeliveryWriter } from '../../src/delivery/deliveryWriter.js';
import type { CarrierReceipt } from '../../src/connectors/connector.js';
import { messageApplyReceipts } from '../../src/messages/outcomes.js';
import { historyColumns, type HistoryRow, historyOf } from '../../src/messages/messageObject.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { insertAccount, insertCallbackTarget, insertMessage, type MessageFields } from '../factories/rows.js';
import { messageRows } from '../helpers/messageRows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const CONNECTOR = 'test-connector';
const ALL_EVENTS = ['sent', 'delivered', 'read', 'price'];

interface Row extends HistoryRow {
  status: string;
  read_status: string | null;
  error_code: number | null;
  price_final: boolean;
  price_refunded: boolean;
  due_at: Date | null;
}

describe.each(ENGINES)('the message lifecycle: status, read status, prices, lifetimes (%s)', (engine) => {
  let testDb: TestDb;
  let db: Db;
  let accountId: number;
  let targetId: number;
  let carrier = 0;

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
    accountId = (await insertAccount(db, { balance: 100 })).id;
    targetId = await insertCallbackTarget(db, accountId, 'http://127.0.0.1:9/callbacks');
  });
  afterAll(async () => testDb?.drop());

  const writer = (): DeliveryWriter =>
    new DeliveryWriter(db, pino({ level: 'silent' }), { maxBatch: 2000, lingerMs: 5 });
  const message = (fields: Partial<MessageFields> = {}): Promise<string> =>
    insertMessage(db, { accountId, channel: 'VK', callbackTargetId: targetId, callbackEvents: ALL_EVENTS, ...fields });
  const row = async (id: string): Promise<Row> =>
    (
      await db.query<Row>(
        `SELECT status, read_status, error_code, price_final, price_refunded, due_at, ${historyColumns('messages')}
         FROM ${messageRows()} WHERE id = $1`,
        [id],
      )
    )[0]!;
  const events = async (id: string): Promise<[string, string | null][]> =>
    (
      await db.query<{ event: string; status: string | null; extra: { price: number } | null }>(
        'SELECT event, status, extra FROM callback_events WHERE message_id = $1 ORDER BY txid, id',
        [id],
      )
    ).map((e) => [e.event, e.status ?? String(e.extra?.price)]);
  const statuses = (r: Row): string[] =>
    historyOf(r)
      .filter((h) => !h.ignored)
      .map((h) => h.status);
  const receipt = (carrierId: string, state: CarrierReceipt['state'], seconds: number): CarrierReceipt => ({
    connectorId: CONNECTOR,
    carrierId,
    state,
    at: at(seconds),
    errorCode: state === 'undelivered' ? 1 : null,
  });
  /** Records a submission of the message through a writer, as a submitter does, and returns its carrier id. */
  const submit = async (w: DeliveryWriter, id: string, seconds = 1): Promise<string> => {
    const carrierId = `c${++carrier}`;
    await w.sent({
      accountId,
      id,
      connectorId: CONNECTOR,
      at: at(seconds),
      carrierIds: [carrierId],
      readTracked: true,
    });
    return carrierId;
  };

  it('keeps status delivered and sets the read status when a read follows the delivery', async () => {
    const w = writer();
    const id = await message();
    const c = await submit(w, id);
    await w.receipts([receipt(c, 'delivered', 2)]);
    await w.receipts([receipt(c, 'read', 3)]);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'delivered', read_status: 'read', due_at: null });
    expect(statuses(r)).toEqual(['sending', 'sent', 'delivered', 'read']);
    // (Rows made by the factory have no reservation event; the price becomes final when the message is sent.)
    expect(await events(id)).toEqual([
      ['sent', 'sent'],
      ['price', '0'],
      ['delivered', 'delivered'],
      ['read', 'read'],
    ]);
  });

  for (const order of [
    ['delivered', 'read'],
    ['read', 'delivered'],
  ] as const) {
    it(`records and calls back delivered before read when both come in a batch (${order.join(' then ')})`, async () => {
      const w = writer();
      const id = await message();
      const c = await submit(w, id);
      await w.receipts(order.map((state, i) => receipt(c, state, 2 + i)));
      const r = await row(id);
      expect(r).toMatchObject({ status: 'delivered', read_status: 'read' });
      expect(statuses(r)).toEqual(['sending', 'sent', 'delivered', 'read']);
      expect((await events(id)).filter(([e]) => e !== 'price')).toEqual([
        ['sent', 'sent'],
        ['delivered', 'delivered'],
        ['read', 'read'],
      ]);
    });
  }

  it('records the delivery first when a read arrives before it, and ignores the delivery coming later', async () => {
    const w = writer();
    const id = await message();
    const c = await submit(w, id);
    await w.receipts([receipt(c, 'read', 3)]);
    expect(await row(id)).toMatchObject({ status: 'delivered', read_status: 'read' });
    await w.receipts([receipt(c, 'delivered', 2)]);
    const r = await row(id);
    expect(statuses(r)).toEqual(['sending', 'sent', 'delivered', 'read']);
    expect(r.history.at(-1)).toMatchObject({ status: 'delivered', ignored: true });
    expect((await events(id)).filter(([e]) => e !== 'price')).toEqual([
      ['sent', 'sent'],
      ['delivered', 'delivered'],
      ['read', 'read'],
    ]);
  });

  it('does the same for receipts matched through the database (another process submitted the message)', async () => {
    const id = await message();
    const c = await submit(writer(), id);
    // A second writer knows nothing of the submission: its receipts go through the submissions table.
    const other = writer();
    await other.receipts([receipt(c, 'read', 3), receipt(c, 'delivered', 2)]);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'delivered', read_status: 'read' });
    expect(statuses(r)).toEqual(['sending', 'sent', 'delivered', 'read']);
    expect((await events(id)).filter(([e]) => e !== 'price')).toEqual([
      ['sent', 'sent'],
      ['delivered', 'delivered'],
      ['read', 'read'],
    ]);
    expect(other.stats.receiptsFromMemory).toBe(0);
  });

  it('merges a submission and both its receipts in one batch into one change', async () => {
    const w = writer();
    const id = await message();
    const c = `c${++carrier}`;
    const done = Promise.all([
      w.sent({ accountId, id, connectorId: CONNECTOR, at: at(1), carrierIds: [c], readTracked: true }),
      w.receipts([receipt(c, 'read', 3), receipt(c, 'delivered', 2)]),
    ]);
    await done;
    const r = await row(id);
    expect(statuses(r)).toEqual(['sending', 'sent', 'delivered', 'read']);
    // (Rows made by the factory have no reservation event; the price becomes final when the message is sent.)
    expect(await events(id)).toEqual([
      ['sent', 'sent'],
      ['price', '0'],
      ['delivered', 'delivered'],
      ['read', 'read'],
    ]);
  });

  it('records sent and delivered when a read overtakes the record of the submission', async () => {
    const id = await message();
    // The submission row exists (written by another process) but the message is still `sending`.
    await db.query(
      `INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
       VALUES ($1, 'early', $2, $3, 1, 1, $4)`,
      [CONNECTOR, accountId, id, at(1)],
    );
    await db.transaction((tx) => messageApplyReceipts(tx, [receipt('early', 'read', 3)]));
    const r = await row(id);
    expect(r).toMatchObject({ status: 'delivered', read_status: 'read', price_final: true });
    expect(statuses(r)).toEqual(['sending', 'sent', 'delivered', 'read']);
    expect((await events(id)).filter(([e]) => e !== 'price')).toEqual([
      ['sent', 'sent'],
      ['delivered', 'delivered'],
      ['read', 'read'],
    ]);
  });

  it('ends the wait for a read at the end of the lifetime: read status unread, status still delivered', async () => {
    const w = writer();
    const id = await message({ ttl: 600 });
    const c = await submit(w, id);
    await w.receipts([receipt(c, 'delivered', 2)]);
    // The wait ends at the end of the one lifetime (planned send + ttl), not ttl after the delivery.
    expect((await row(id)).due_at).toEqual(at(600));
    expect(await messageExpireDue(db, at(599), 100, DELIVERY_ERRORS)).toEqual([]);
    const expired = await messageExpireDue(db, at(600), 1000, DELIVERY_ERRORS);
    expect(expired.filter((e) => e.id === id)).toEqual([{ account_id: accountId, id, outcome: 'unread' }]);
    const r = await row(id);
    expect(r).toMatchObject({ status: 'delivered', read_status: 'unread', error_code: null, due_at: null });
    expect((await events(id)).at(-1)).toEqual(['read', 'unread']);
    // A read after that is late: ignored.
    await w.receipts([receipt(c, 'read', 700)]);
    expect((await row(id)).read_status).toBe('unread');
  });

  it('ends the wait for a final status at the end of the one lifetime, however late the message was sent', async () => {
    const w = writer();
    const id = await message({ channel: 'SMS', ttl: 600 });
    await submit(w, id, 500);
    expect((await row(id)).due_at).toEqual(at(600));
    await messageExpireDue(db, at(600), 1000, DELIVERY_ERRORS);
    expect(await row(id)).toMatchObject({ status: 'undelivered', error_code: DELIVERY_ERRORS.noReceipt });
  });

  it('makes the price final with an event when the message is sent, in the account currency even if free', async () => {
    const w = writer();
    const free = await message({ channel: 'SMS' });
    const priced = await message({ channel: 'SMS', price: 2.5 });
    await submit(w, free);
    await submit(w, priced);
    const prices = async (id: string) =>
      (
        await db.query<{ extra: { price: number; currency: string } }>(
          "SELECT extra FROM callback_events WHERE message_id = $1 AND event = 'price' ORDER BY txid, id",
          [id],
        )
      ).map((e) => e.extra);
    expect(await prices(free)).toEqual([{ parts: 1, price: 0, currency: 'RUB' }]);
    expect(await prices(priced)).toEqual([{ parts: 1, price: 2.5, currency: 'RUB' }]);
    expect(await row(priced)).toMatchObject({ price_final: true, price_refunded: false });
  });

  it('refunds a message that becomes unsent once, with one price event, even when told twice', async () => {
    const balance = async () =>
      Number(
        (
          await db.query<{ amount: string }>('SELECT amount FROM account_balances WHERE account_id = $1', [accountId])
        )[0]!.amount,
      );
    const before = await balance();
    const w = writer();
    const id = await message({ channel: 'SMS', price: 3 });
    const c = await submit(w, id);
    await w.receipts([receipt(c, 'unsent', 2)]);
    await w.receipts([receipt(c, 'unsent', 3)]);
    expect(await row(id)).toMatchObject({ status: 'unsent', price_refunded: true });
    expect(await balance()).toBe(before + 3);
    expect((await events(id)).filter(([e]) => e === 'price')).toEqual([
      ['price', '3'],
      ['price', '0'],
    ]);
  });
});
