import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallbackSender,
  callbackLeaseMs,
  type CallbackSenderOptions,
  DEFAULT_SENDER_OPTIONS,
  OUTCOME_MARGIN_MS,
} from '../../src/callbacks/callbackSender.js';
import { CallbackTargets, expireCallbackTargets } from '../../src/callbacks/callbackTargets.js';
import { callbackPostsForm, NEW_EVENTS_PER_LOOK } from '../../src/callbacks/postSql.js';
import { callbackCursorsEnsure, type EventPosition } from '../../src/callbacks/laneSql.js';
import type { Db } from '../../src/db/db.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';
import { HORIZON_TEST_MS, horizonWait } from '../helpers/horizon.js';
import { insertAccount, insertMessage } from '../factories/rows.js';

const NOW = new Date('2026-03-10T09:00:00Z');
const DAY_MS = 86_400_000;

/**
 * Which lanes a callback sender looks at: those with new events, not every lane of every URL (an account's ten
 * thousand idle URLs once cost a core), including after a restart and after idle lanes lost their cursors.
 */
describe.each(ENGINES)('callback lanes: found from new events (%s)', { timeout: HORIZON_TEST_MS }, (engine) => {
  let testDb: TestDb;
  let db: Db;
  let accountId: number;
  let receiver: Receiver;
  const clock = new TestClock(NOW);

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
    accountId = (await insertAccount(db)).id;
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await testDb?.drop();
  });

  const sender = (options: Partial<CallbackSenderOptions> = {}): CallbackSender =>
    new CallbackSender(
      { db, clock, log: pino({ level: 'silent' }) },
      { ...DEFAULT_SENDER_OPTIONS, retryIntervalS: 300, retryWindowS: 86_400, allowPrivate: true, ...options },
    );
  const targetFor = async (url: string, created = NOW): Promise<number> =>
    (await new CallbackTargets().resolve(db, accountId, [url], created)).get(url)!;
  const event = async (targetId: number, lane: number, messageId = randomUUID()): Promise<string> => {
    await db.query(
      `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at)
       VALUES ($1, $2, $3, $4, 'delivered', 'SMS', 'delivered', $5)`,
      [targetId, lane, accountId, messageId, NOW],
    );
    return messageId;
  };
  const received = (id: string): boolean => receiver.events().some((e) => e.message_uuid === id);
  /** Rounds of a sender until the events are called back (each round forms, claims and starts attempts). */
  const deliver = async (s: CallbackSender, ids: string[]): Promise<void> => {
    await waitFor(async () => {
      await s.round();
      await s.settle();
      return ids.every(received);
    }, horizonWait(db));
  };

  /**
   * A sender leases its POSTs for as long as an attempt may take: with a lease shorter than the timeout, a receiver
   * slower than the lease had each POST taken again while in flight, and the refusals of the attempts, made under
   * leases that had run out, were dropped (docs/callbacks.md, Leases).
   */
  it("leases a POST for at least its attempt's timeout and the margin for its outcome", async () => {
    expect(callbackLeaseMs(60_000, 10_000)).toBe(60_000);
    expect(callbackLeaseMs(3000, 120_000)).toBe(120_000 + OUTCOME_MARGIN_MS);
    const target = await targetFor(`${receiver.url}?lease`);
    const id = await event(target, 3);
    await deliver(sender({ leaseMs: 3000, timeoutMs: 10_000 }), [id]);
    // A delivery leaves the POST's next attempt as its claim set it: the lease's end.
    const [row] = await db.query<{ state: string; next: Date }>(
      `SELECT state, next_attempt_at AS next FROM callback_deliveries WHERE target_id = $1`,
      [target],
    );
    expect(row).toEqual({ state: 'delivered', next: new Date(clock.now().getTime() + 10_000 + OUTCOME_MARGIN_MS) });
  });

  it('finds the lanes of new events only, however many idle URLs the account has', async () => {
    for (let i = 0; i < 200; i++) await targetFor(`${receiver.url}?idle=${i}`);
    const busy = await targetFor(`${receiver.url}?busy`);
    const look = (since: EventPosition) => callbackPostsForm(db, NOW, { pending: [], since }, 500);
    const { next: horizon } = await look({ txid: String(2 ** 60), id: 0 });
    const id = await event(busy, 5);
    // Another test's transaction may hold PostgreSQL's horizon back for a moment: look until the event is below it.
    const round = await waitFor(async () => {
      const r = await look(horizon);
      return r.found.length > 0 && r;
    }, horizonWait(db));
    expect(round.found).toEqual([{ targetId: busy, lane: 5 }]);
    // A new URL's lane has no cursor until its first events come.
    expect(round.cursorless).toEqual([{ targetId: busy, lane: 5 }]);
    await deliver(sender(), [id]);
  });

  it('reads a backlog bigger than one look in several, each going on where the last stopped', async () => {
    const [a, b] = [await targetFor(`${receiver.url}?backlog-a`), await targetFor(`${receiver.url}?backlog-b`)];
    const { next: start } = await callbackPostsForm(
      db,
      NOW,
      { pending: [], since: { txid: String(2 ** 60), id: 0 } },
      0,
    );
    // One transaction writes a look's worth of events to lane 1 of one URL, then one to lane 2 of another.
    await db.query(
      `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at)
       SELECT $1::bigint, 1, $3::bigint, gen_random_uuid(), 'delivered', 'SMS', 'delivered', $4::timestamptz
       FROM generate_series(1, $5::int)
       UNION ALL SELECT $2::bigint, 2, $3::bigint, gen_random_uuid(), 'delivered', 'SMS', 'delivered', $4::timestamptz`,
      [a, b, accountId, NOW, NEW_EVENTS_PER_LOOK],
    );
    const first = await waitFor(async () => {
      const r = await callbackPostsForm(db, NOW, { pending: [], since: start }, 0);
      return r.found.length > 0 && r;
    }, horizonWait(db));
    expect(first.found).toEqual([{ targetId: a, lane: 1 }]);
    const second = await callbackPostsForm(db, NOW, { pending: [], since: first.next }, 0);
    expect(second.found).toEqual([{ targetId: b, lane: 2 }]);
  });

  it('delivers after a start what was written while no sender ran', async () => {
    const target = await targetFor(`${receiver.url}?restart`);
    const first = await event(target, 1);
    const s = sender();
    await deliver(s, [first]);
    // Written while no sender runs: a new one finds them, whether their lane is behind its cursor or new.
    const ids = [await event(target, 1), await event(target, 2)];
    await deliver(sender(), ids);
  });

  it('drops the cursors of URLs idle for a day, and gives them back with the next event, which goes once', async () => {
    const idle = await targetFor(`${receiver.url}?expiring`, new Date(NOW.getTime() - 2 * DAY_MS));
    const fresh = await targetFor(`${receiver.url}?fresh`);
    // A message refers to it (it may still raise an event): the URL keeps its row.
    await insertMessage(db, { accountId, callbackTargetId: idle, createdAt: new Date(NOW.getTime() - 2 * DAY_MS) });
    const all = (targetId: number) => Array.from({ length: 16 }, (_, lane) => ({ targetId, lane }));
    await callbackCursorsEnsure(db, [...all(idle), ...all(fresh)]);
    const cursors = async (targetId: number): Promise<number> =>
      (
        await db.query<{ n: number }>('SELECT count(*)::int AS n FROM callback_cursors WHERE target_id = $1', [
          targetId,
        ])
      )[0]!.n;
    expect(await cursors(idle)).toBe(16);
    expect(await expireCallbackTargets(db, NOW)).toMatchObject({ parked: 1, deleted: 0 });
    expect(await cursors(idle)).toBe(0);
    expect(await cursors(fresh)).toBe(16);
    // A running sender and a sender started later both deliver its next events.
    const running = sender();
    await running.round();
    const id = await event(idle, 7);
    await deliver(running, [id]);
    expect(await cursors(idle)).toBeGreaterThan(0);
    expect(await expireCallbackTargets(db, NOW)).toMatchObject({ parked: 1, deleted: 0 });
    expect(await cursors(idle)).toBe(0);
    const later = await event(idle, 7);
    await deliver(sender(), [later]);
    // Each went once: the lane started again after the events already sent.
    expect(receiver.events().filter((e) => e.message_uuid === id)).toHaveLength(1);
    expect(receiver.events().filter((e) => e.message_uuid === later)).toHaveLength(1);
  });
});
