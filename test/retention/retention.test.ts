import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCallbackTargets } from '../../src/callbacks/callbackTargets.js';
import { loadConfig } from '../../src/config/config.js';
import { retentionCutoff, retentionSweep } from '../../src/retention/retention.js';
import { rollUpStatistics } from '../../src/statistics/rollup.js';
import { insertAccount, insertMessage } from '../factories/rows.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound, untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { messageRows } from '../helpers/messageRows.js';

const DAY_MS = 86_400_000;

describe.each(ENGINES)('retention (HERALD_RETENTION_DAYS) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    account = await t.createAccount({ senderNames: [['SMS', 'Keep']] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const send = (destinations: string[], callbackUrl?: string): Promise<string[]> =>
    t.send(
      account.traffic,
      destinations.map((destination, i) => ({
        channelType: 'SMS',
        senderName: 'Keep',
        destination,
        content: `retention ${i}`,
        ...(callbackUrl ? { callbackUrl } : {}),
      })),
    );
  const count = async (sql: string): Promise<number> =>
    (await t.testDb.db.query<{ n: number }>(sql, [account.id]))[0]!.n;
  const dayTotal = async (): Promise<number> =>
    (await t.call('GET', '/api/v1/statistics?from=2026-03-10&to=2026-03-11', { token: account.system })).body.total
      .messages;

  it('deletes finished messages, submissions and callback deliveries past retention; keeps the rest', async () => {
    // Day 0: 20 delivered messages, each with its delivered callback; one whose receipt never comes (still running).
    const old = await send(
      Array.from({ length: 20 }, (_, i) => `7916123${String(i).padStart(3, '0')}0`),
      receiver.url,
    );
    const [silent] = await send(['79161239999']);
    await untilWritten(
      t.herald,
      async () =>
        (await count(`SELECT count(*) AS n FROM ${messageRows()} WHERE account_id = $1 AND status = 'delivered'`)) ===
        20,
    );
    await untilCallbackRound(
      t.herald,
      async () =>
        (await count(`SELECT count(*) AS n FROM callback_deliveries WHERE account_id = $1 AND state = 'delivered'`)) >
          0 && receiver.events().length === 20,
    );
    await untilCallbackRound(
      t.herald,
      async () =>
        (await count(
          `SELECT count(*) AS n FROM callback_deliveries WHERE account_id = $1 AND state <> 'delivered'`,
        )) === 0,
    );

    // Ten days later: the day is rolled up, and today's messages arrive.
    t.clock.advance(10 * DAY_MS);
    await rollUpStatistics(t.testDb.db, t.clock.now());
    expect(await dayTotal()).toBe(21);
    const recent = await send(['79161230500', '79161230510']);
    // Their callback URL, unused for ten days, loses its cursors, but stays while the messages refer to it.
    expect(await expireCallbackTargets(t.testDb.db, t.clock.now())).toMatchObject({ parked: 1, deleted: 0 });

    const result = await retentionSweep(t.testDb.db, retentionCutoff(t.clock.now(), 7));
    expect(result.messages).toBe(20);
    expect(result.callbackPosts).toBeGreaterThan(0);
    for (const id of old)
      expect((await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).status).toBe(404);
    // Kept: the message whose lifetime is still running in the database, and today's.
    for (const id of [silent!, ...recent])
      expect((await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).status).toBe(200);
    expect(await count(`SELECT count(*) AS n FROM callback_deliveries WHERE account_id = $1`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM callback_events WHERE account_id = $1`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM callback_attempts WHERE account_id = $1`)).toBe(0);
    expect(
      await count(`SELECT count(*) AS n FROM submissions WHERE account_id = $1 AND created_at < '2026-03-13'`),
    ).toBe(0);
    // The statistics still count the day from its rollup.
    expect(await dayTotal()).toBe(21);

    // A late change marks the old day dirty: past the retention its rollup is final, not redone from what is left.
    await t.testDb.db.query(
      `INSERT INTO stats_dirty_days (account_id, day) VALUES ($1, '2026-03-10') ON CONFLICT DO NOTHING`,
      [account.id],
    );
    await rollUpStatistics(t.testDb.db, t.clock.now(), {
      frozenBefore: new Date(t.clock.now().getTime() - 7 * DAY_MS),
    });
    expect(await dayTotal()).toBe(21);
    // A second sweep finds nothing more.
    expect(await retentionSweep(t.testDb.db, retentionCutoff(t.clock.now(), 7))).toEqual({
      partitions: 0,
      messages: 0,
      submissions: 0,
      callbackPosts: 0,
    });

    // Nothing refers to the URL any more, and the sweep said so: it goes, and a message that uses it again gets a new
    // target, whose callbacks are delivered.
    const targetOf = async (): Promise<number | undefined> =>
      (
        await t.testDb.db.query<{ id: number }>('SELECT id FROM callback_targets WHERE account_id = $1 AND url = $2', [
          account.id,
          receiver.url,
        ])
      )[0]?.id;
    const target = await targetOf();
    expect(await expireCallbackTargets(t.testDb.db, t.clock.now())).toMatchObject({ deleted: 1 });
    expect(await targetOf()).toBeUndefined();
    const [again] = await send(['79161230520'], receiver.url);
    await untilCallbackRound(t.herald, () => receiver.events().some((e) => e.message_uuid === again));
    expect(await targetOf()).not.toBe(target);
  });

  it('is off unless configured, and takes 7 days at least', () => {
    expect(loadConfig({}).retentionDays).toBeUndefined();
    expect(loadConfig({ HERALD_RETENTION_DAYS: '30' }).retentionDays).toBe(30);
    expect(() => loadConfig({ HERALD_RETENTION_DAYS: '3' })).toThrow(
      /HERALD_RETENTION_DAYS: must be an integer from 7 to 36500/,
    );
  });
});

describe.each(ENGINES)('retention of a message with its short links and conversions (%s)', (engine) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("deletes a finished message's short links and conversions with it, and keeps those of kept messages", async () => {
    const db = t.db;
    const day = (n: number): Date => new Date(Date.parse('2026-03-01T09:00:00Z') + n * DAY_MS);
    const { id: accountId } = await insertAccount(db);
    const finished = await insertMessage(db, { accountId, status: 'delivered', createdAt: day(0) });
    const running = await insertMessage(db, { accountId, status: 'sent', createdAt: day(0), dueAt: day(20) });
    const recent = await insertMessage(db, { accountId, status: 'delivered', createdAt: day(9) });
    for (const [i, messageId] of [finished, running, recent].entries()) {
      await db.query(
        `INSERT INTO short_links (code, account_id, message_id, url, created_at)
         VALUES ($1, $2, $3, 'https://a.example', $4)`,
        [`code${i}`, accountId, messageId, day(0)],
      );
      await db.query(
        `INSERT INTO flashcall_conversions (account_id, message_id, result, created_at)
         VALUES ($1, $2, 'WRONG_CODE', $3)`,
        [accountId, messageId, day(0)],
      );
    }
    await db.query(`INSERT INTO stats_rollup_state (rolled_until) VALUES ('2026-03-08')`);

    const result = await retentionSweep(db, day(7));

    expect(result.messages).toBe(1);
    const left = async (table: string): Promise<string[]> =>
      (
        await db.query<{ message_id: string }>(
          `SELECT message_id FROM ${table} WHERE account_id = $1 ORDER BY message_id`,
          [accountId],
        )
      ).map((r) => r.message_id);
    expect(await left('short_links')).toEqual([running, recent].sort());
    expect(await left('flashcall_conversions')).toEqual([running, recent].sort());
  });
});
