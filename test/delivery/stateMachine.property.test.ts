import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { messageExpireDue } from '../../src/messages/expirySql.js';
import { DeliveryWriter } from '../../src/delivery/deliveryWriter.js';
import { messageApplyReceipts } from '../../src/messages/outcomes.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { messageStop } from '../../src/messages/messageLookupSql.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { insertAccount, insertCallbackTarget, insertMessage } from '../factories/rows.js';
import { runCount } from '../helpers/runCount.js';
import { messageRows } from '../helpers/messageRows.js';

const T0 = Date.parse('2026-03-10T09:00:00Z');
const MESSAGES = 3;
const CONNECTOR = 'prop';
/** Command sequences: 40 in `npm test` (about 3 s per engine), 400 nightly (`npm run test:nightly`: 12 s). */
const RUNS = runCount('HERALD_TEST_STATE_MACHINE_RUNS', 40);

/** What can happen to a message, in any order, any number of times, split into writer batches anywhere. */
type Command =
  | { kind: 'submit'; m: number }
  | { kind: 'retry'; m: number }
  | { kind: 'receipt'; m: number; state: 'delivered' | 'undelivered' | 'unsent' | 'read'; viaDb: boolean }
  | { kind: 'expire' }
  | { kind: 'stop'; m: number }
  | { kind: 'flush' }
  | { kind: 'restart' };

const message = fc.integer({ min: 0, max: MESSAGES - 1 });
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('submit' as const), m: message }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retry' as const), m: message }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('receipt' as const),
      m: message,
      state: fc.constantFrom('delivered' as const, 'undelivered' as const, 'unsent' as const, 'read' as const),
      viaDb: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'expire' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stop' as const), m: message }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

/** The order statuses may be reached in; a status entry never has a lower rank than one before it. */
const RANK: Readonly<Record<string, number>> = { sent: 1, delivered: 2, undelivered: 2, unsent: 2, read: 3, unread: 3 };
const EVENT_OF: Readonly<Record<string, string>> = {
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'delivered',
  unsent: 'delivered',
  read: 'read',
  unread: 'read',
};

/**
 * The message state machine under random interleavings of submission results (and their duplicates), receipts
 * (in any order, matched in memory or through the database, split into batches anywhere), lifetimes ending,
 * stops and writer restarts: no status goes backwards, no read without the delivery before it, no refund twice,
 * and the callback events of each message follow its status history.
 */
describe.each(ENGINES)('the message state machine, as a property (%s)', (engine) => {
  let testDb: TestDb;
  let db: Db;
  let targetId: number;
  let accountId: number;

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
    accountId = (await insertAccount(db, { balance: 0 })).id;
    targetId = await insertCallbackTarget(db, accountId, 'http://127.0.0.1:9/property');
  });
  afterAll(async () => testDb?.drop());

  const balance = async (): Promise<number> =>
    Number(
      (await db.query<{ amount: string }>('SELECT amount FROM account_balances WHERE account_id = $1', [accountId]))[0]
        ?.amount ?? 0,
    );

  it('never moves backwards, reads before delivering or refunds twice, and calls back in status order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 24 }),
        fc.constantFrom('VK', 'SMS'),
        async (commands, channel) => {
          const ids: string[] = [];
          for (let i = 0; i < MESSAGES; i++) {
            ids.push(
              await insertMessage(db, {
                accountId,
                channel,
                price: 1,
                ttl: 3600,
                callbackTargetId: targetId,
                callbackEvents: ['sent', 'delivered', 'read', 'price'],
                createdAt: new Date(T0),
              }),
            );
          }
          const before = await balance();
          const silent = pino({ level: 'silent' });
          // Batches end only where the test flushes: no timer flushes behind its back.
          const newWriter = (): DeliveryWriter =>
            new DeliveryWriter(db, silent, { maxBatch: 100_000, lingerMs: 3_600_000 });
          let writer = newWriter();
          let pending: Promise<void>[] = [];
          let clock = T0;
          const flush = async (): Promise<void> => {
            await writer.drain();
            await Promise.all(pending);
            pending = [];
          };
          for (const c of commands) {
            const at = new Date((clock += 1000));
            const ref =
              c.kind === 'expire' || c.kind === 'flush' || c.kind === 'restart'
                ? undefined
                : { accountId, id: ids[c.m]! };
            switch (c.kind) {
              case 'submit':
                pending.push(
                  writer.sent({
                    ...ref!,
                    connectorId: CONNECTOR,
                    at,
                    carrierIds: [ref!.id],
                    readTracked: channel === 'VK',
                  }),
                );
                break;
              case 'retry':
                pending.push(writer.retry({ ...ref!, dueAt: new Date(clock + 60_000), at, reason: 'transient' }));
                break;
              case 'receipt': {
                const receipt = {
                  connectorId: CONNECTOR,
                  carrierId: ref!.id,
                  state: c.state,
                  at,
                  errorCode: c.state === 'delivered' || c.state === 'read' ? null : 7,
                };
                if (c.viaDb) {
                  await flush();
                  await db.transaction((tx) => messageApplyReceipts(tx, [receipt]));
                } else pending.push(writer.receipts([receipt]));
                break;
              }
              case 'expire':
                await flush();
                await messageExpireDue(db, new Date(T0 + 2 * 86_400_000), 1000, DELIVERY_ERRORS);
                break;
              case 'stop':
                await flush();
                await db.transaction((tx) => messageStop(tx, accountId, [ref!.id], at, DELIVERY_ERRORS.stopped));
                break;
              case 'flush':
                await flush();
                break;
              case 'restart':
                await flush();
                writer = newWriter();
                break;
            }
          }
          await flush();

          const rows = await db.query<{
            id: string;
            status: string;
            read_status: string | null;
            price_refunded: boolean;
            history: { status: string; ignored?: boolean; retryAt?: string }[];
          }>(
            `SELECT id, status, read_status, price_refunded, history FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
            [ids],
          );
          let refunds = 0;
          for (const row of rows) {
            const entries = row.history.filter((h) => !h.ignored && h.status !== 'sending').map((h) => h.status);
            const ranks = entries.map((s) => RANK[s]!);
            // Never backwards, each stage once.
            expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
            expect(new Set(ranks).size).toBe(ranks.length);
            // No read without the delivery before it.
            if (entries.includes('read')) expect(entries[entries.indexOf('read') - 1]).toBe('delivered');
            if (entries.includes('unread')) expect(entries[entries.indexOf('unread') - 1]).toBe('delivered');
            // The status is the last delivery outcome; the read status is apart.
            expect(['sending', 'sent', 'delivered', 'undelivered', 'unsent']).toContain(row.status);
            const outcomes = entries.filter((s) => RANK[s]! <= 2);
            expect(row.status).toBe(outcomes.at(-1) ?? 'sending');
            expect(row.read_status).toBe(entries.find((s) => s === 'read' || s === 'unread') ?? null);
            if (row.read_status !== null) expect(row.status).toBe('delivered');
            // Refunded exactly when unsent.
            expect(row.price_refunded).toBe(row.status === 'unsent');
            if (row.price_refunded) refunds++;

            const events = await db.query<{ event: string; status: string | null; extra: { price: number } | null }>(
              'SELECT event, status, extra FROM callback_events WHERE message_id = $1 ORDER BY txid, id',
              [row.id],
            );
            // Status events: one per status entry, in the same order.
            const statusEvents = events.filter((e) => e.event !== 'price');
            expect(statusEvents.map((e) => [e.event, e.status])).toEqual(entries.map((s) => [EVENT_OF[s], s]));
            // Price events: final once when it left `sending`, and 0 once if it was refunded.
            const prices = events.filter((e) => e.event === 'price').map((e) => e.extra!.price);
            expect(prices).toEqual(
              entries.length === 0 ? [] : row.price_refunded ? (entries[0] === 'unsent' ? [0] : [1, 0]) : [1],
            );
          }
          // Each refund was credited once.
          expect(await balance()).toBe(before + refunds);
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);
});
