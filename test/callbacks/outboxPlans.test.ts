import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { callbackEventsAfter } from '../../src/callbacks/eventSql.js';
import { callbackPostBodies, callbackPostsBodies, callbackPostsForm } from '../../src/callbacks/postSql.js';
import { callbackSmppPostsClaim, SMPP_BINDS_URL } from '../../src/callbacks/smppPostSql.js';
import { ENGINES } from '../helpers/engines.js';
import { indexesOf, planOf, scansOf, subplanNodes } from '../helpers/plans.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { insertAccount, insertCallbackTarget } from '../factories/rows.js';

const T0 = new Date('2026-03-10T09:00:00Z');

/**
 * The plans of the callback outbox's hot statements, on an outbox of 20,000 events with statistics (docs/scaling.md:
 * every message with a callback passes through them): each reads an index range that stops where it should, never
 * the whole outbox nor a sort of it.
 */
describe.each(ENGINES)('callback outbox: the plans of its hot statements (%s)', (engine) => {
  const own = ownRowsTests(engine);

  /**
   * POSTs in the middle of {@link manyEvents}' outbox (URL `first`'s first event as the origin): events of
   * transactions 1040 to 1360 of a URL's lane.
   */
  const middlePosts = async (tx: Queryable, first: number) => {
    const [origin] = await tx.query<{ id: number }>(
      'SELECT min(id)::int AS id FROM callback_events WHERE target_id = $1',
      [first],
    );
    return (target: number, lane: number, id = '') => ({
      id,
      target_id: target,
      lane,
      after_txid: '1040',
      after_event_id: origin!.id + 4000,
      last_txid: '1360',
      last_event_id: origin!.id + 4000 + 16000,
      only_messages: null as string[] | null,
      excluded_messages: null as string[] | null,
    });
  };

  /**
   * 20,000 events of 20 URLs over their 16 lanes, interleaved as receipts come, from 400 transactions, analysed; the
   * first URL's id.
   */
  const manyEvents = async (tx: Queryable, { analyse = true } = {}): Promise<number> => {
    const accountId = (await insertAccount(tx)).id;
    const targets: number[] = [];
    for (let i = 0; i < 20; i++)
      targets.push(await insertCallbackTarget(tx, accountId, `http://127.0.0.1:9/plans/${i}`, T0));
    await tx.query(
      // As 400 transactions of 50 events each wrote them (their ids as given, not this test's one transaction).
      `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at, txid)
       SELECT ($1::bigint[])[1 + i % 20], (i / 20) % 16, $2, gen_random_uuid(), 'delivered', 'SMS', 'delivered', $3,
         (1000 + i / 50)::text::xid8
       FROM generate_series(0, 19999) i`,
      [targets, accountId, T0],
    );
    if (analyse) await tx.query('ANALYZE callback_events');
    return targets[0]!;
  };

  own(
    "forming reads the events since its last look in the order of their transaction ids' index, to its limit",
    async (tx) => {
      const targetId = await manyEvents(tx);
      // The plan for these values, and the generic one the PostgreSQL driver keeps (genericPlan).
      for (const generic of [false, true]) {
        const plan = await planOf(
          tx,
          (explaining) =>
            callbackPostsForm(explaining, T0, { pending: [{ targetId, lane: 3 }], since: { txid: '0', id: 0 } }, 500)
              // Explained, not run: the function finds no row to read its round from.
              .catch(() => undefined),
          { generic },
        );
        const newest = subplanNodes(plan, 'CTE newest');
        expect(newest.slice(0, 2)).toEqual([
          { type: 'Limit', index: undefined },
          { type: 'Index Scan', index: 'callback_events_txid' },
        ]);
        expect(scansOf(plan, 'callback_events')).not.toContain('Seq Scan');
      }
    },
  );

  own(
    "an idle sender's look for new events is one probe of that index, with the outbox's statistics or without",
    async (tx) => {
      for (const analyse of [false, true]) {
        await manyEvents(tx, { analyse });
        const plan = await planOf(tx, (explaining) => callbackEventsAfter(explaining, { txid: '1390', id: 0 }));
        expect(scansOf(plan, 'callback_events')).toEqual(['Index Only Scan callback_events_txid']);
      }
      // And it finds what it should: events after the first look's position, none after the last event.
      expect(await callbackEventsAfter(tx, { txid: '1390', id: 0 })).toBe(true);
      expect(await callbackEventsAfter(tx, { txid: '9999', id: 0 })).toBe(false);
    },
  );

  own(
    'forming reads the new events by that index to its limit also where the outbox has no statistics yet',
    async (tx) => {
      // A new outbox, or a database restored or upgraded (pg_upgrade keeps no statistics): the planner takes a third
      // of the table for any range. It read and sorted the whole outbox each round (a benchmark's rounds spent more
      // than half their time so).
      const targetId = await manyEvents(tx, { analyse: false });
      for (const generic of [false, true]) {
        const plan = await planOf(
          tx,
          (explaining) =>
            callbackPostsForm(
              explaining,
              T0,
              { pending: [{ targetId, lane: 3 }], since: { txid: '1200', id: 0 } },
              500,
            ).catch(() => undefined),
          { generic },
        );
        expect(subplanNodes(plan, 'CTE newest').slice(0, 2)).toEqual([
          { type: 'Limit', index: undefined },
          { type: 'Index Scan', index: 'callback_events_txid' },
        ]);
        expect(scansOf(plan, 'callback_events')).not.toContain('Seq Scan');
      }
      // The settings are the transaction's own again for what follows in it (the round's claim).
      const [after] = await tx.query<{ seqscan: string }>(`SELECT current_setting('enable_seqscan') AS seqscan`);
      expect(after!.seqscan).toBe('on');
    },
  );

  own(
    "a POST's bodies are one range of the outbox's primary key: its lane, after its start, up to its end",
    async (tx) => {
      const targetId = await manyEvents(tx);
      // A POST of 50 events of lane 3 of the first URL in the middle of the outbox (every 320th event is one), from
      // 320 of the 400 transactions.
      const post = await middlePosts(tx, targetId);
      const plan = await planOf(tx, (explaining) => callbackPostBodies(explaining, post(targetId, 3)));
      // The lane's range of the primary key, as an index scan or a bitmap of it (and a sort of its few rows): never
      // the transaction ids' index, whose range holds every URL's and lane's events of those transactions.
      expect(indexesOf(plan)).toEqual(['callback_events_pkey']);
      expect(scansOf(plan, 'callback_events')).not.toContain('Seq Scan');
    },
  );

  own(
    "a round's POSTs' bodies are each one range of the primary key, the POST's bounds the scan's parameters",
    async (tx) => {
      const targetId = await manyEvents(tx);
      const post = await middlePosts(tx, targetId);
      // Two POSTs of lanes 3 and 5 of the first URL, one of lane 3 of the second, and one of lane 3 holding some of its
      // messages only (held), in the middle of the outbox.
      const held = { ...post(targetId, 3, '4'), only_messages: [randomUUID(), randomUUID()] };
      // For these values and for any (a named statement's generic plan, which PostgreSQL may come to prefer).
      for (const generic of [false, true]) {
        const plan = await planOf(
          tx,
          (explaining) =>
            callbackPostsBodies(explaining, [
              post(targetId, 3, '1'),
              post(targetId, 5, '2'),
              post(targetId + 1, 3, '3'),
              held,
            ]),
          { generic },
        );
        expect(indexesOf(plan)).toEqual(['callback_events_pkey']);
        expect(scansOf(plan, 'callback_events')).not.toContain('Seq Scan');
      }
    },
  );
});

describe.each(ENGINES)('SMPP receipts: the plan of the lease (%s)', (engine) => {
  const own = ownRowsTests(engine);

  own(
    "leases an account's open SMPP POSTs through callback_deliveries_smpp, not a read of every delivery",
    async (tx) => {
      const accounts: number[] = [];
      for (let i = 0; i < 10; i++) accounts.push((await insertAccount(tx)).id);
      const targetId = await insertCallbackTarget(tx, accounts[0]!, SMPP_BINDS_URL, T0);
      // 20,000 deliveries of ten accounts: most of them finished HTTP POSTs, one in ten an SMPP POST still open.
      await tx.query(
        `INSERT INTO callback_deliveries (id, account_id, target_id, lane, after_txid, after_event_id, last_txid,
         last_event_id, events, state, attempts, next_attempt_at, window_started_at, created_at, via_smpp)
       SELECT gen_random_uuid(), ($1::bigint[])[1 + i % 10], $2, i % 16, '0', 0, '0', 0, 1,
         CASE WHEN i % 10 = 0 THEN 'open' ELSE 'delivered' END, 1, $3, $3,
         $3::timestamptz + i * interval '1 ms', i % 10 = 0
       FROM generate_series(0, 19999) i`,
        [accounts, targetId, T0],
      );
      await tx.query('ANALYZE callback_deliveries');
      const plan = await planOf(tx, (explaining) =>
        callbackSmppPostsClaim(
          explaining,
          [
            { accountId: accounts[0]!, limit: 16 },
            { accountId: accounts[1]!, limit: 16 },
          ],
          T0,
          60_000,
          64,
        ),
      );
      expect(indexesOf(plan)).toContain('callback_deliveries_smpp');
      expect(scansOf(plan, 'callback_deliveries')).not.toContain('Seq Scan');
    },
  );
});
