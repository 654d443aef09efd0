import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { CallbackTargets } from '../../src/callbacks/callbackTargets.js';
import { callbackPostsForm, EVENTS_PER_POST } from '../../src/callbacks/postSql.js';
import { callbackCursorsEnsure, type Lane } from '../../src/callbacks/laneSql.js';
import { insertAccount } from '../factories/rows.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { waitFor } from '../helpers/waitFor.js';
import { HORIZON_WAIT_MS, horizonWait } from '../helpers/horizon.js';

const NOW = new Date('2026-03-10T09:00:00Z');
/** A transaction id beyond any: the look at new events finds none, only the lanes given are looked at. */
const FAR = { txid: String(2 ** 60), id: 0 };
/**
 * Rounds of the race. Without the cursor check of the forming statement, on PostgreSQL on the busy 2-core machine,
 * the slow sender failed on the unique index `callback_deliveries_one_fresh` in every round (40 of 40, then 10 of 10).
 */
const ROUNDS = 10;
/** Lanes the slower sender looks at besides the contended one: its look takes long enough for the other to commit. */
const OTHER_LANES = 4000;

/**
 * Two callback senders forming deliveries for the same lane at once: one looks at many lanes (its statement's
 * snapshot is taken well before it locks the lane's cursor), the other at that lane alone, and commits meanwhile.
 * The lane has more events than one delivery takes, so the slower one finds events beyond the cursor the other
 * moved. It must leave the lane to the one that formed it (one delivery waits for its first attempt per lane),
 * never fail on the index that says so.
 */
describe.each(ENGINES)('two senders forming deliveries for the same lane (%s)', (engine) => {
  let testDb: TestDb;
  let db: Db;
  let accountId: number;
  let contended: Lane;
  let others: Lane[];

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
    accountId = (await insertAccount(db)).id;
    const targets = new CallbackTargets();
    const urls = Array.from({ length: OTHER_LANES / 16 + 1 }, () => `http://127.0.0.1:9/${randomUUID()}`);
    const ids = [...(await targets.resolve(db, accountId, urls, NOW)).values()];
    contended = { targetId: ids[0]!, lane: 3 };
    others = ids.slice(1).flatMap((targetId) => Array.from({ length: 16 }, (_, lane) => ({ targetId, lane })));
    await callbackCursorsEnsure(db, [contended, ...others]);
  });
  afterAll(async () => testDb?.drop());

  it(
    `forms one fresh delivery per lane and never fails, in ${ROUNDS} rounds`,
    async () => {
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await db.query('DELETE FROM callback_deliveries WHERE target_id = $1', [contended.targetId]);
        await db.query(`UPDATE callback_cursors SET cursor_txid = '0', cursor_event_id = 0 WHERE target_id = $1`, [
          contended.targetId,
        ]);
        await db.query(
          `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at)
         SELECT $1, $2, $3, gen_random_uuid(), 'delivered', 'SMS', 'delivered', $4
         FROM generate_series(1, $5)`,
          [contended.targetId, contended.lane, accountId, NOW, EVENTS_PER_POST + 50],
        );
        // Formable once every older transaction of the server has ended (another file's may still run): then it stays.
        await waitFor(async () => {
          const [row] = await db.query<{ below: boolean }>(
            `SELECT max(txid) < pg_snapshot_xmin(pg_current_snapshot()) AS below FROM callback_events
           WHERE target_id = $1`,
            [contended.targetId],
          );
          return row!.below;
        }, horizonWait(db));
        const slow = callbackPostsForm(db, NOW, { pending: [...others, contended], since: FAR }, 500);
        // The quick one starts a little after, at a different moment each round (0-9 ms), so that some rounds commit
        // it while the slow one is looking.
        await new Promise((resolve) => setTimeout(resolve, round % 10));
        const quick = callbackPostsForm(db, NOW, { pending: [contended], since: FAR }, 500);
        for (const result of await Promise.allSettled([slow, quick]))
          if (result.status === 'rejected') failures.push(`round ${round}: ${String(result.reason)}`);
        const [fresh] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM callback_deliveries WHERE target_id = $1 AND attempts = 0`,
          [contended.targetId],
        );
        expect(fresh!.n).toBe(1);
      }
      expect(failures).toEqual([]);
    },
    120_000 + ROUNDS * HORIZON_WAIT_MS,
  );
});
