import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import {
  callbackPostDefer,
  callbackPostsClaim,
  callbackPostsForm,
  callbackPostsBodies,
  callbackPostsRecord,
  type AttemptOutcome,
  type ClaimedPost,
} from '../../src/callbacks/postSql.js';
import { CallbackTargets } from '../../src/callbacks/callbackTargets.js';
import { callbackCursorsEnsure } from '../../src/callbacks/laneSql.js';
import { callbackPostsDeleteFinished } from '../../src/callbacks/postRetentionSql.js';
import { callbackSmppPostsClaim, SMPP_BINDS_URL } from '../../src/callbacks/smppPostSql.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { insertAccount } from '../factories/rows.js';
import { waitFor } from '../helpers/waitFor.js';
import { HORIZON_TEST_MS, horizonWait } from '../helpers/horizon.js';

const NOW = new Date('2026-03-10T09:00:00Z');
const LEASE_MS = 60_000;
/** A transaction id beyond any: the look at new events finds none, only the lane given is looked at. */
const FAR = { txid: String(2 ** 60), id: 0 };

/** The outbox's forming and claiming queries on their own: which events go in which delivery, and when. */
describe.each(ENGINES)('callback deliveries: forming and claiming (%s)', { timeout: HORIZON_TEST_MS }, (engine) => {
  let testDb: TestDb;
  let db: Db;
  let accountId: number;

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    db = testDb.db;
    accountId = (await insertAccount(db)).id;
  });
  afterAll(async () => testDb?.drop());

  const newTarget = async (url = `http://127.0.0.1:9/${randomUUID()}`): Promise<number> => {
    const targets = await new CallbackTargets().resolve(db, accountId, [url], NOW);
    current = [...targets.values()][0]!;
    await callbackCursorsEnsure(db, [{ targetId: current, lane: 3 }]);
    return current;
  };
  /**
   * Events of messages in lane 3 of the target, committed together: formable at the same moment, where events
   * committed one by one may fall below the horizon apart (another file's transaction began between them).
   */
  const events = async (targetId: number, ...statuses: [messageId: string, status: string][]): Promise<void> => {
    await db.query(
      `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at)
       SELECT $1, 3, $2, e.message_id, 'delivered', 'SMS', e.status, $5
       FROM unnest($3::uuid[], $4::text[]) WITH ORDINALITY AS e(message_id, status, n) ORDER BY e.n`,
      [targetId, accountId, statuses.map(([m]) => m), statuses.map(([, st]) => st), NOW],
    );
  };
  /** An event of a message in lane 3 of the target, committed on its own. */
  const event = (targetId: number, messageId: string, status: string): Promise<void> =>
    events(targetId, [messageId, status]);
  /**
   * Forms deliveries until `expected` more exist. On PostgreSQL an event becomes formable only once every transaction
   * older than it has ended, cluster-wide: another test's transaction may hold it back for a moment.
   */
  const formIn = async (target: number): Promise<number> =>
    (await callbackPostsForm(db, NOW, { pending: [{ targetId: target, lane: 3 }], since: FAR }, 500)).formed;
  /**
   * Waits until every event of the target is below the horizon (formable, were no rule to hold it back): a check that
   * nothing forms means nothing before that.
   */
  const settled = async (target: number): Promise<void> => {
    await waitFor(async () => {
      const [row] = await db.query<{ above: number }>(
        `SELECT count(*)::int AS above FROM callback_events
         WHERE target_id = $1 AND txid >= pg_snapshot_xmin(pg_current_snapshot())`,
        [target],
      );
      return row!.above === 0;
    }, horizonWait(db));
  };
  let current = 0;
  const form = async (expected: number): Promise<void> => {
    let formed = 0;
    await waitFor(async () => (formed += await formIn(current)) >= expected, horizonWait(db));
    expect(formed).toBe(expected);
  };
  const claim = async (targetId: number): Promise<ClaimedPost[]> =>
    (await callbackPostsClaim(db, NOW, 100, LEASE_MS)).filter((d) => d.target_id === targetId);
  /** What a POST's body says, message by message, as a round reads it. */
  const bodies = async (d: ClaimedPost): Promise<[string, string][]> =>
    parsed((await callbackPostsBodies(db, [d])).get(d.id)!);
  const parsed = (texts: readonly string[]): [string, string][] =>
    texts.map((b) => JSON.parse(b) as { message_uuid: string; status: string }).map((b) => [b.message_uuid, b.status]);
  const outcome = (d: ClaimedPost, result: 'delivered' | 'retry', at: Date): AttemptOutcome => ({
    postId: d.id,
    accountId,
    at,
    httpStatus: result === 'delivered' ? 200 : 503,
    latencyMs: 1,
    error: result === 'delivered' ? null : 'HTTP 503',
    result,
    nextAttemptAt: result === 'retry' ? new Date(at.getTime() + 300_000) : null,
    leaseUntil: d.lease_until,
  });
  const record = (d: ClaimedPost, result: 'delivered' | 'retry', at = NOW): Promise<void> =>
    callbackPostsRecord(db, [outcome(d, result, at)]);

  it('keeps one delivery per lane until its first attempt, then forms the next', async () => {
    const target = await newTarget();
    const [a, b] = [randomUUID(), randomUUID()];
    await event(target, a, 'sent');
    await form(1);
    await event(target, b, 'sent');
    await settled(target);
    expect(await formIn(target)).toBe(0);
    const [first, ...none] = await claim(target);
    expect(none).toEqual([]);
    expect(await bodies(first!)).toEqual([[a, 'sent']]);
    // While its first attempt is in flight, nothing new forms in the lane.
    expect(await formIn(target)).toBe(0);
    expect(await claim(target)).toEqual([]);
    await record(first!, 'delivered');
    await form(1);
    const [second] = await claim(target);
    expect(await bodies(second!)).toEqual([[b, 'sent']]);
  });

  it("reads a round's POSTs' events in one statement, each POST's own range in order", async () => {
    const [one, two] = [await newTarget(), await newTarget()];
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await events(one, [a, 'sent'], [b, 'sent']);
    await events(two, [c, 'sent']);
    let formed = 0;
    await waitFor(async () => (formed += (await formIn(one)) + (await formIn(two))) >= 2, horizonWait(db));
    expect(formed).toBe(2);
    const due = (await callbackPostsClaim(db, NOW, 100, LEASE_MS)).filter((d) => [one, two].includes(d.target_id));
    expect(due).toHaveLength(2);
    const read = await callbackPostsBodies(db, due);
    expect([...read.keys()]).toEqual(due.map((d) => d.id));
    const of = (target: number): [string, string][] => parsed(read.get(due.find((d) => d.target_id === target)!.id)!);
    expect(of(one)).toEqual([
      [a, 'sent'],
      [b, 'sent'],
    ]);
    expect(of(two)).toEqual([[c, 'sent']]);
    expect(await callbackPostsBodies(db, [])).toEqual(new Map());

    // Ranges of one lane read together, whole or of some of its messages (held POSTs), in the order given.
    const [low, high] = await db.query<{ txid: string; id: number }>(
      `SELECT txid::text AS txid, id::int AS id FROM callback_events WHERE target_id = $1 ORDER BY txid, id`,
      [one],
    );
    const range = (id: string, only: string[] | null, excluded: string[] | null) => ({
      id,
      target_id: one,
      lane: 3,
      after_txid: low!.txid,
      after_event_id: low!.id - 1,
      last_txid: high!.txid,
      last_event_id: high!.id,
      only_messages: only,
      excluded_messages: excluded,
    });
    const mixed = await callbackPostsBodies(db, [
      range('whole', null, null),
      range('only b', [b], null),
      range('not a', null, [a]),
      { ...range('after a', null, null), after_event_id: low!.id },
    ]);
    expect([...mixed.keys()]).toEqual(['whole', 'only b', 'not a', 'after a']);
    expect([...mixed.values()].map(parsed)).toEqual([
      [
        [a, 'sent'],
        [b, 'sent'],
      ],
      [[b, 'sent']],
      [[b, 'sent']],
      [[b, 'sent']],
    ]);
  });

  it('lets newer events go past a refused delivery, holding back only the later events of its messages', async () => {
    const target = await newTarget();
    const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
    await events(target, [x, 'sent'], [y, 'sent']);
    await form(1);
    const [refused] = await claim(target);
    await record(refused!, 'retry');

    // X's next event and Z's come after the refusal: Z's goes at once, X's waits for X's older one.
    await event(target, x, 'delivered');
    await event(target, z, 'sent');
    await form(2);
    const due = await claim(target);
    expect(due).toHaveLength(1);
    expect(await bodies(due[0]!)).toEqual([[z, 'sent']]);
    await record(due[0]!, 'delivered');
    expect(await claim(target)).toEqual([]);

    // The receiver takes the refused delivery at its retry; then X's later event is free to go.
    const retried = (await callbackPostsClaim(db, new Date(NOW.getTime() + 300_000), 100, LEASE_MS)).filter(
      (d) => d.target_id === target,
    );
    expect(retried.map((d) => d.id)).toEqual([refused!.id]);
    expect(await bodies(retried[0]!)).toEqual([
      [x, 'sent'],
      [y, 'sent'],
    ]);
    await record(retried[0]!, 'delivered', new Date(NOW.getTime() + 300_000));
    const [held] = await claim(target);
    expect(await bodies(held!)).toEqual([[x, 'delivered']]);
  });

  it("records several POSTs' outcomes in one statement, each with its attempt", async () => {
    const targets = [await newTarget(), await newTarget()];
    const posts: ClaimedPost[] = [];
    for (const target of targets) {
      current = target;
      await event(target, randomUUID(), 'sent');
      await form(1);
      posts.push(...(await claim(target)));
    }
    await callbackPostsRecord(db, [outcome(posts[0]!, 'delivered', NOW), outcome(posts[1]!, 'retry', NOW)]);
    const rows = await db.query<{ id: string; state: string; attempts: number; tried: number }>(
      `SELECT d.id, d.state, d.attempts,
         (SELECT count(*)::int FROM callback_attempts a WHERE a.delivery_id = d.id) AS tried
       FROM callback_deliveries d WHERE d.id = ANY($1::uuid[])`,
      [posts.map((p) => p.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(posts[0]!.id)).toMatchObject({ state: 'delivered', attempts: 1, tried: 1 });
    expect(byId.get(posts[1]!.id)).toMatchObject({ state: 'open', attempts: 1, tried: 1 });
    expect(await callbackPostsRecord(db, [])).toBeUndefined();
  });

  it('leaves a POST another sender took when its lease ended to that one, but for a late delivery', async () => {
    const target = await newTarget();
    await event(target, randomUUID(), 'sent');
    await form(1);
    const [first] = await claim(target);
    expect(first!.lease_until).toEqual(new Date(NOW.getTime() + LEASE_MS));
    // The first sender's receiver is slower than the lease: another sender takes the POST when it runs out.
    const later = new Date(NOW.getTime() + LEASE_MS);
    const [second] = (await callbackPostsClaim(db, later, 100, LEASE_MS)).filter((d) => d.target_id === target);
    expect(second!.id).toBe(first!.id);
    const state = async (): Promise<{ state: string; attempts: number; next: Date; tried: number }> =>
      (
        await db.query<{ state: string; attempts: number; next: Date; tried: number }>(
          `SELECT d.state, d.attempts, d.next_attempt_at AS next,
             (SELECT count(*)::int FROM callback_attempts a WHERE a.delivery_id = d.id) AS tried
           FROM callback_deliveries d WHERE d.id = $1`,
          [first!.id],
        )
      )[0]!;
    // The first one's refusal comes late: logged, and the second one's lease stands.
    await record(first!, 'retry', later);
    expect(await state()).toEqual({ state: 'open', attempts: 0, next: second!.lease_until, tried: 1 });
    await callbackPostDefer(db, first!.id, first!.lease_until, new Date(later.getTime() + 1000));
    expect((await state()).next).toEqual(second!.lease_until);
    // The first one's receiver answers at last: a delivery ends the POST under whichever lease (the receiver has it),
    // and a refusal of the second one's attempt, come after, never opens it again.
    await record(first!, 'delivered', later);
    expect(await state()).toMatchObject({ state: 'delivered', attempts: 1, tried: 2 });
    await record(second!, 'retry', later);
    expect(await state()).toMatchObject({ state: 'delivered', attempts: 1, tried: 3 });
  });

  it('forms no more deliveries in a lane whose receiver refused three that are still open', async () => {
    const target = await newTarget();
    for (let i = 0; i < 3; i++) {
      await event(target, randomUUID(), 'sent');
      await form(1);
      const [refused] = await claim(target);
      await record(refused!, 'retry');
    }
    await event(target, randomUUID(), 'sent');
    await settled(target);
    expect(await formIn(target)).toBe(0);
    // One of them is taken at its retry: the lane moves again.
    const later = new Date(NOW.getTime() + 300_000);
    const [retried] = (await callbackPostsClaim(db, later, 100, LEASE_MS)).filter((d) => d.target_id === target);
    await record(retried!, 'delivered', later);
    await form(1);
  });

  it("keeps forming the SMPP binds' lanes while their POSTs are leased, holding no message apart", async () => {
    const target = await newTarget(SMPP_BINDS_URL);
    const messages = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // Each POST leased by a bind counts an attempt: four in flight do not stop the lane as refused HTTP POSTs do.
    for (const message of messages) {
      await event(target, message, 'delivered');
      await form(1);
      expect(await callbackSmppPostsClaim(db, [{ accountId, limit: 10 }], NOW, LEASE_MS, 10)).toHaveLength(1);
    }
    // A later event of a message with a leased POST goes with the others (the binds carry one event a message).
    await event(target, messages[0]!, 'delivered');
    await event(target, randomUUID(), 'delivered');
    const posts = (): Promise<
      { events: number; only_messages: string[] | null; excluded_messages: string[] | null }[]
    > =>
      db.query('SELECT events, only_messages, excluded_messages FROM callback_deliveries WHERE target_id = $1', [
        target,
      ]);
    // Formed as their transactions fall below the horizon: together or one by one, never apart as held.
    await waitFor(async () => {
      await formIn(target);
      return (await posts()).reduce((n, p) => n + p.events, 0) === 6;
    }, horizonWait(db));
    for (const post of await posts()) expect(post).toMatchObject({ only_messages: null, excluded_messages: null });
  });

  it('keeps the events of a held delivery when retention deletes its finished sibling of the same range', async () => {
    const target = await newTarget();
    const [x, z] = [randomUUID(), randomUUID()];
    await event(target, x, 'sent');
    await form(1);
    const [refused] = await claim(target);
    await record(refused!, 'retry');
    await event(target, x, 'delivered');
    await event(target, z, 'sent');
    await form(2);
    const [free] = await claim(target);
    await record(free!, 'delivered');
    // Retention of everything finished before tomorrow: the delivered one goes, the held one's event stays.
    const deleted = await callbackPostsDeleteFinished(db, accountId, new Date(NOW.getTime() + 86_400_000), 100);
    expect(deleted.deleted).toBeGreaterThan(0);
    expect(deleted.callbackTargetIds).toContain(target);
    const left = await db.query<{ message_id: string; status: string }>(
      'SELECT message_id, status FROM callback_events WHERE target_id = $1 ORDER BY id',
      [target],
    );
    expect(left.map((e) => [e.message_id, e.status])).toEqual([
      [x, 'sent'],
      [x, 'delivered'],
    ]);
  });

  it('keeps a held message waiting behind every older delivery that carries it', async () => {
    const target = await newTarget();
    const x = randomUUID();
    await event(target, x, 'sent');
    await form(1);
    const [refused] = await claim(target);
    await record(refused!, 'retry');
    await event(target, x, 'delivered');
    await form(1);
    await event(target, x, 'read');
    await form(1);
    expect(await claim(target)).toEqual([]);
    const later = new Date(NOW.getTime() + 300_000);
    const [first] = (await callbackPostsClaim(db, later, 100, LEASE_MS)).filter((d) => d.target_id === target);
    await record(first!, 'delivered', later);
    const [second, ...rest] = await claim(target);
    expect(rest).toEqual([]);
    expect(await bodies(second!)).toEqual([[x, 'delivered']]);
    await record(second!, 'delivered');
    const [third] = await claim(target);
    expect(await bodies(third!)).toEqual([[x, 'read']]);
  });
});
