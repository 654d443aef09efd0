import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallbackSender,
  callbackLeaseMs,
  DEFAULT_SENDER_OPTIONS,
  OUTCOME_MARGIN_MS,
} from '../../src/callbacks/callbackSender.js';
import { CallbackTargets } from '../../src/callbacks/callbackTargets.js';
import type { Db } from '../../src/db/db.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';
import { HORIZON_TEST_MS, horizonWait } from '../helpers/horizon.js';
import { insertAccount } from '../factories/rows.js';

const NOW = new Date('2026-03-10T09:00:00Z');

describe('the lease of a callback POST', () => {
  it('is HERALD_LEASE_SECONDS, but never shorter than an attempt with its margin', () => {
    expect(callbackLeaseMs(60_000, 10_000)).toBe(60_000);
    expect(callbackLeaseMs(3000, 10_000)).toBe(10_000 + OUTCOME_MARGIN_MS);
    expect(callbackLeaseMs(3000, 120_000)).toBe(120_000 + OUTCOME_MARGIN_MS);
  });
});

/**
 * A sender leases its POSTs for as long as an attempt may take: with a lease shorter than the timeout, a receiver
 * slower than the lease had each POST taken again while in flight, and the refusals of the attempts, made under leases
 * that had run out, were dropped (docs/callbacks.md, Leases).
 */
describe.each(ENGINES)(
  'a callback sender with a lease shorter than its timeout (%s)',
  { timeout: HORIZON_TEST_MS },
  (engine) => {
    let testDb: TestDb;
    let db: Db;
    let receiver: Receiver;
    const clock = new TestClock(NOW);

    beforeAll(async () => {
      testDb = await openTestDb(engine);
      db = testDb.db;
      receiver = await new Receiver().start();
    });
    afterAll(async () => {
      await receiver?.stop();
      await testDb?.drop();
    });

    it('leases each POST for the timeout and the margin', async () => {
      const accountId = (await insertAccount(db)).id;
      const targetId = (await new CallbackTargets().resolve(db, accountId, [receiver.url], NOW)).get(receiver.url)!;
      const messageId = randomUUID();
      await db.query(
        `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at)
       VALUES ($1, 3, $2, $3, 'delivered', 'SMS', 'delivered', $4)`,
        [targetId, accountId, messageId, NOW],
      );
      const sender = new CallbackSender(
        { db, clock, log: pino({ level: 'silent' }) },
        {
          ...DEFAULT_SENDER_OPTIONS,
          retryIntervalS: 300,
          retryWindowS: 86_400,
          allowPrivate: true,
          leaseMs: 3000,
          timeoutMs: 10_000,
        },
      );
      await waitFor(async () => {
        await sender.round();
        await sender.settle();
        return receiver.events().some((e) => e.message_uuid === messageId);
      }, horizonWait(db));
      // A delivery leaves the POST's next attempt as its claim set it: the lease's end.
      const [row] = await db.query<{ state: string; next: Date }>(
        `SELECT state, next_attempt_at AS next FROM callback_deliveries WHERE target_id = $1`,
        [targetId],
      );
      expect(row).toEqual({ state: 'delivered', next: new Date(NOW.getTime() + 10_000 + OUTCOME_MARGIN_MS) });
    });
  },
);
