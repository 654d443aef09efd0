import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callbackSmppWaiting } from '../../src/callbacks/index.js';
import { inPost } from '../../src/callbacks/postRange.js';
import type { SmppServerOptions } from '../../src/smppServer/index.js';
import { ENGINES, type Engine } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { bindAccount, SmppTestClient, submitWithReceipts } from './smppClient.js';

/** A client's answer that refuses a deliver_sm (SMPP 3.4, 5.1.3: system error). */
const ESME_RSYSERR = 0x08;

/** A receiver's window of deliver_sm: small, so that a client that does not answer has receipts waiting for room. */
const DELIVER_WINDOW = 5;

/** A Herald of the describe's own with the SMPP server's options given, and binds closed after each test. */
function receiptHerald(
  engine: Engine,
  smppServer: Partial<SmppServerOptions>,
): {
  t: () => TestHerald;
  bind: (a: TestAccount, command: 'bind_transmitter' | 'bind_receiver') => Promise<SmppTestClient>;
} {
  let t: TestHerald;
  const clients: SmppTestClient[] = [];
  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: { HERALD_SMPP_PORT: '0', HERALD_SMPP_RATE_LIMIT: '1000' },
      delivery: { delayMs: 5 },
      smppServer: Object.assign({ pollMs: 50, retryMs: 200 }, smppServer),
    });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  return { t: () => t, bind: (a, command) => bindAccount(t, a, command, clients) };
}

describe.each(ENGINES)('receipts waiting for room in the binds windows on %s', (engine) => {
  const h = receiptHerald(engine, { deliverWindow: DELIVER_WINDOW });
  const bind = h.bind;

  /** Receipts in open batches for the binds, not yet acknowledged (every account's: the tests run one at a time). */
  const waitingReceipts = (): Promise<number> => callbackSmppWaiting(h.t().herald.ctx.db);

  it("costs an answer one look for room, however many of another account's receipts wait", async () => {
    const t = h.t();
    const receipts = t.herald.smppServer!.receipts;
    const slow = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const slowIds = await submitWithReceipts(await bind(slow, 'bind_transmitter'), 60);
    // Most of the 60 receipts formed into batches before a receiver binds (a lane forms no more while its newest
    // batch waits for a first lease): its first look takes them all.
    await waitFor(async () => (await waitingReceipts()) >= 40, {
      timeoutMs: 20_000,
      describe: async () => `${await waitingReceipts()} receipts in open batches`,
    });
    const slowReceiver = await bind(slow, 'bind_receiver');
    slowReceiver.answering = false;
    // Its window full, and never more than full; the rest of what it took waiting for room.
    await waitFor(() => slowReceiver.held.length === DELIVER_WINDOW && receipts.waitingForRoom(slow.id) >= 35, {
      timeoutMs: 20_000,
      describe: () => `held ${slowReceiver.held.length}, waiting ${receipts.waitingForRoom(slow.id)}`,
    });
    const waiting = receipts.waitingForRoom(slow.id);
    expect(slowReceiver.held).toHaveLength(DELIVER_WINDOW);

    const quick = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const quickReceiver = await bind(quick, 'bind_receiver');
    const looksBefore = receipts.slotLooks;
    const quickIds = await submitWithReceipts(await bind(quick, 'bind_transmitter'), 30);
    await waitFor(() => quickIds.every((id) => quickReceiver.receiptIds().includes(id)), {
      timeoutMs: 20_000,
      describe: () => `${quickReceiver.receiptIds().length} of 30 receipts`,
    });
    // Each of the 30 receipts looked once, and again for each time its account's window was full: never once more
    // for each of the other account's waiting receipts (35 or more an answer).
    expect(receipts.slotLooks - looksBefore).toBeLessThan(3 * quickIds.length);
    expect(receipts.waitingForRoom(slow.id)).toBe(waiting);

    // The slow client answers again: each answer lets one waiting receipt in, until all 60 have come.
    slowReceiver.answering = true;
    slowReceiver.answerHeld();
    await waitFor(() => slowIds.every((id) => slowReceiver.receiptIds().includes(id)), {
      timeoutMs: 20_000,
      describe: () => `${slowReceiver.receiptIds().length} of 60 receipts`,
    });
    expect(new Set(slowReceiver.receiptIds()).size).toBe(60);
  }, 90_000);

  it('lets waiting receipts into a receiver bound while they wait, and back to the queue when it goes', async () => {
    const t = h.t();
    const receipts = t.herald.smppServer!.receipts;
    const a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const ids = await submitWithReceipts(await bind(a, 'bind_transmitter'), 20);
    await waitFor(async () => (await waitingReceipts()) >= 10, { timeoutMs: 20_000 });
    const first = await bind(a, 'bind_receiver');
    first.answering = false;
    await waitFor(() => first.held.length === DELIVER_WINDOW && receipts.waitingForRoom(a.id) > 0, {
      timeoutMs: 20_000,
    });
    expect(first.held).toHaveLength(DELIVER_WINDOW);
    // A second receiver takes the waiting ones without an answer on the first.
    const second = await bind(a, 'bind_receiver');
    await waitFor(() => second.receiptIds().length > 0, { timeoutMs: 30_000 });
    // The first goes without answering: what it held comes again on the second; nothing waits for room any more.
    first.destroy();
    await waitFor(() => ids.every((id) => second.receiptIds().includes(id)), { timeoutMs: 30_000 });
    expect(receipts.waitingForRoom(a.id)).toBe(0);
  });
});

/**
 * A POST stays in hand as long as its client takes to answer its events: past half its lease, each look renews it, so
 * that no other process takes it (its lease run out) and sends again what this one has sent and had acknowledged.
 */
describe.each(ENGINES)('receipt POSTs held past half their lease on %s', (engine) => {
  const LEASE_MS = 10_000;
  const h = receiptHerald(engine, { deliverWindow: DELIVER_WINDOW, leaseMs: LEASE_MS });

  it('have their leases renewed while their client is slow, and every receipt comes once', async () => {
    const t = h.t();
    const db = t.herald.ctx.db;
    const a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const ids = await submitWithReceipts(await h.bind(a, 'bind_transmitter'), 20);
    await waitFor(async () => (await callbackSmppWaiting(db)) >= 10, { timeoutMs: 20_000 });
    const receiver = await h.bind(a, 'bind_receiver');
    receiver.answering = false;
    await waitFor(() => receiver.held.length === DELIVER_WINDOW, { timeoutMs: 20_000 });
    const leased = async (): Promise<number[]> =>
      (
        await db.query<{ until: Date }>(
          `SELECT smpp_lease_until AS until FROM callback_deliveries
           WHERE account_id = $1 AND via_smpp AND state = 'open' AND smpp_lease_until IS NOT NULL`,
          [a.id],
        )
      ).map((r) => r.until.getTime());
    const first = await leased();
    expect(first.length).toBeGreaterThan(0);

    // Past half the lease (and short of the deliver_sm's own timeout): the next look renews each to a whole lease.
    t.clock.advance(LEASE_MS * 0.6);
    const renewedTo = t.clock.now().getTime() + LEASE_MS;
    await waitFor(async () => (await leased()).every((until) => until >= renewedTo), {
      timeoutMs: 10_000,
      describe: async () => `leases ${JSON.stringify(await leased())}, renewed to ${renewedTo} or later expected`,
    });

    receiver.answering = true;
    receiver.answerHeld();
    await waitFor(() => ids.every((id) => receiver.receiptIds().includes(id)), { timeoutMs: 20_000 });
    expect(receiver.receiptIds().filter((id) => ids.includes(id))).toHaveLength(ids.length);
  });

  it('sends no more of a POST another process took when its lease ran out here, and leaves it that lease', async () => {
    const t = h.t();
    const db = t.herald.ctx.db;
    const receipts = t.herald.smppServer!.receipts;
    const a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const ids = await submitWithReceipts(await h.bind(a, 'bind_transmitter'), 20);
    // More receipts formed than a window takes, before a receiver binds: some of those it leases wait for room.
    await waitFor(async () => (await callbackSmppWaiting(db)) > DELIVER_WINDOW, { timeoutMs: 20_000 });
    const receiver = await h.bind(a, 'bind_receiver');
    receiver.answering = false;
    await waitFor(() => receiver.held.length === DELIVER_WINDOW && receipts.waitingForRoom(a.id) > 0, {
      timeoutMs: 20_000,
      describe: () => `${receiver.held.length} held, ${receipts.waitingForRoom(a.id)} waiting for room`,
    });
    const sent = receiver.held.map((pdu) => String(pdu.receipted_message_id)).sort();
    const taken = receipts.leasesTaken;

    // This process stalls past its leases, and another takes every POST it holds (its lease ends an hour on).
    const otherLease = new Date(t.clock.now().getTime() + 3_600_000);
    const others = await db.query<{ id: string }>(
      `UPDATE callback_deliveries SET smpp_lease_until = $2
       WHERE account_id = $1 AND via_smpp AND state = 'open' AND smpp_lease_until IS NOT NULL RETURNING id`,
      [a.id, otherLease],
    );
    const ofTaken = new Set(
      (
        await db.query<{ message_id: string }>(
          `SELECT e.message_id FROM callback_deliveries d JOIN callback_events e ON ${inPost('e', 'd')}
           WHERE d.id = ANY($1::uuid[])`,
          [others.map((o) => o.id)],
        )
      ).map((r) => r.message_id),
    );
    expect(sent.every((id) => ofTaken.has(id))).toBe(true);
    expect(ofTaken.size).toBeGreaterThan(DELIVER_WINDOW);
    // The next look past half the lease finds them taken: what waits for room leaves this process's hands at once.
    t.clock.advance(LEASE_MS * 0.6);
    await waitFor(() => receipts.leasesTaken === taken + others.length && receipts.waitingForRoom(a.id) === 0, {
      timeoutMs: 10_000,
      describe: () =>
        `${receipts.leasesTaken - taken} of ${others.length} POSTs found taken, ` +
        `${receipts.waitingForRoom(a.id)} receipts waiting for room`,
    });

    // Its client answers again: the deliver_sm it had sent are acknowledged, and recorded; no other receipt of the
    // taken POSTs goes out, and the receipts of POSTs formed or leased after the take come as usual.
    receiver.answering = true;
    receiver.answerHeld();
    const rest = ids.filter((id) => !ofTaken.has(id));
    await waitFor(() => rest.every((id) => receiver.receiptIds().includes(id)) && receipts.postsHeld(a.id) === 0, {
      timeoutMs: 20_000,
      describe: () => `${receiver.receiptIds().length} receipts, ${receipts.postsHeld(a.id)} POSTs still in hand`,
    });
    expect(
      receiver
        .receiptIds()
        .filter((id) => ofTaken.has(id))
        .sort(),
    ).toEqual(sent);
    expect(await callbackSmppWaiting(db)).toBe(ofTaken.size - sent.length);
    // The other process's leases stand: this one gave none of them back.
    const leases = await db.query<{ until: Date }>(
      `SELECT smpp_lease_until AS until FROM callback_deliveries WHERE id = ANY($1::uuid[]) AND state = 'open'`,
      [others.map((o) => o.id)],
    );
    expect(leases.length).toBeGreaterThan(0);
    expect(leases.map((l) => l.until.getTime())).toEqual(leases.map(() => otherLease.getTime()));
  });
});

/** A deliver_sm the client leaves unanswered this long counts as not delivered (deliverTimeoutMs). */
const DELIVER_TIMEOUT_MS = 20_000;

/**
 * A deliver_sm unanswered past its timeout (one timer for a bind's deliver_sm, smppServer.ts ClientSession) counts as
 * lost: its POST is given back and the receipt sent again; the answer to the second ends it, and the first's late
 * answer changes nothing.
 */
describe.each(ENGINES)('a deliver_sm unanswered past its timeout on %s', (engine) => {
  const h = receiptHerald(engine, { deliverTimeoutMs: DELIVER_TIMEOUT_MS });

  it('sends the receipt again once its timeout has passed, not before, and ends it at the answer', async () => {
    const t = h.t();
    const metrics = t.herald.smppServer!.metrics;
    const lost = async (): Promise<number> =>
      (await metrics.delivers.get()).values.find((v) => v.labels.kind === 'receipt' && v.labels.outcome === 'lost')
        ?.value ?? 0;
    const lostBefore = await lost();
    const a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const receiver = await h.bind(a, 'bind_receiver');
    receiver.answering = false;
    const [id] = await submitWithReceipts(await h.bind(a, 'bind_transmitter'), 1);
    await waitFor(() => receiver.held.length === 1, { timeoutMs: 20_000, describe: () => 'no deliver_sm' });
    const bind = t.herald.smppServer!.bound().find((cs) => cs.bind!.type === 'receiver')!;
    expect(bind.delivers.size).toBe(1);
    t.clock.advance(DELIVER_TIMEOUT_MS - 1);
    expect(bind.delivers.size).toBe(1);
    t.clock.advance(1);
    expect(bind.delivers.size).toBe(0);
    // Lost, its POST given back at once: the next look sends it again, on the one bind there is.
    await waitFor(() => receiver.held.length === 2, {
      timeoutMs: 20_000,
      describe: () => `${receiver.held.length} deliver_sm held`,
    });
    expect(receiver.receiptIds()).toEqual([id, id]);
    expect(await lost()).toBe(lostBefore + 1);
    // Both answered: the first's answer comes late and is nobody's; the second's ends the POST.
    receiver.answerHeld();
    await waitFor(async () => (await callbackSmppWaiting(t.herald.ctx.db)) === 0, {
      timeoutMs: 20_000,
      describe: async () => `${await callbackSmppWaiting(t.herald.ctx.db)} receipts waiting`,
    });
    expect(receiver.delivered).toHaveLength(2);
    expect(bind.delivers.size).toBe(0);
    expect(await lost()).toBe(lostBefore + 1);
  });
});

/**
 * A process's places for receipt POSTs are shared among the accounts (DESIGN 22; smppServer/receiptDelivery.ts): the
 * POSTs of an account whose client does not answer wait for its window and hold their places, at most its share of
 * them, so another account's receipts still go. Two places, one an account; windows wide enough for any POST, so
 * that its limit, not a full window, is what keeps an account from a second place; a deliver_sm unanswered counts as
 * lost only after ten minutes, far past the test.
 */
describe.each(ENGINES)('receipt POSTs shared among accounts on %s', (engine) => {
  const h = receiptHerald(engine, {
    deliverWindow: 100,
    deliverTimeoutMs: 600_000,
    receiptPosts: { process: 2, account: 1 },
  });
  const bind = h.bind;

  const openPosts = async (accountId: number): Promise<number> => {
    const [row] = await h
      .t()
      .herald.ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM callback_deliveries WHERE account_id = $1 AND state = 'open' AND via_smpp`,
        [accountId],
      );
    return row!.n;
  };

  it("delivers an account's receipts while another account's client holds its share unanswered", async () => {
    const t = h.t();
    const receipts = t.herald.smppServer!.receipts;
    const slow = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const slowIds = await submitWithReceipts(await bind(slow, 'bind_transmitter'), 40);
    // Formed into POSTs of several lanes before a receiver binds: more than every place of the process.
    await waitFor(async () => (await openPosts(slow.id)) >= 3, {
      timeoutMs: 20_000,
      describe: async () => `${await openPosts(slow.id)} open POSTs`,
    });
    const slowReceiver = await bind(slow, 'bind_receiver');
    slowReceiver.answering = false;
    // Its one place taken by a POST whose deliver_sm go unanswered; its window has room, its limit keeps it at one.
    await waitFor(() => slowReceiver.held.length > 0 && receipts.postsHeld(slow.id) === 1, {
      timeoutMs: 20_000,
      describe: () => `held ${slowReceiver.held.length}, POSTs ${receipts.postsHeld(slow.id)}`,
    });

    const quick = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const quickReceiver = await bind(quick, 'bind_receiver');
    const quickIds = await submitWithReceipts(await bind(quick, 'bind_transmitter'), 5);
    await waitFor(() => quickIds.every((id) => quickReceiver.receiptIds().includes(id)), {
      timeoutMs: 20_000,
      describe: () => `${quickReceiver.receiptIds().length} of 5 receipts`,
    });
    // The slow account still holds its one place, its deliver_sm unanswered.
    expect(receipts.postsHeld(slow.id)).toBe(1);
    expect(slowReceiver.held.length).toBeLessThan(40);

    // Its client answers again: every receipt comes, once (none timed out to be sent again).
    slowReceiver.answering = true;
    slowReceiver.answerHeld();
    await waitFor(() => slowIds.every((id) => slowReceiver.receiptIds().includes(id)), {
      timeoutMs: 30_000,
      describe: () => `${slowReceiver.receiptIds().length} of 40 receipts`,
    });
    expect(slowReceiver.receiptIds()).toHaveLength(40);
  }, 90_000);
});

/**
 * A POST given back while a renewal of its lease is under way: the give-back waits for the renewal and names the
 * lease it set (with the lease before, it matched nothing, and the POST stayed leased to no one until the renewed
 * lease ran out). PostgreSQL only: a second session holds the POST's row so that the renewal is surely under way when
 * the client answers, which PGlite's one session cannot.
 */
describe.runIf(ENGINES.includes('postgres'))(
  'a receipt POST given back while its lease is being renewed (postgres)',
  () => {
    const LEASE_MS = 10_000;
    const RETRY_MS = 200;
    const h = receiptHerald('postgres', { deliverWindow: DELIVER_WINDOW, leaseMs: LEASE_MS, retryMs: RETRY_MS });

    it('is given back under the lease the renewal set', async () => {
      const t = h.t();
      const db = t.herald.ctx.db;
      const a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
      await submitWithReceipts(await h.bind(a, 'bind_transmitter'), 1);
      const receiver = await h.bind(a, 'bind_receiver');
      receiver.answering = false;
      await waitFor(() => receiver.held.length === 1, { timeoutMs: 20_000 });
      const leaseOf = async (): Promise<{ id: string; until: Date }> =>
        (
          await db.query<{ id: string; until: Date }>(
            `SELECT id, smpp_lease_until AS until FROM callback_deliveries
           WHERE account_id = $1 AND via_smpp AND state = 'open'`,
            [a.id],
          )
        )[0]!;
      const { id } = await leaseOf();

      const holder = new pg.Client({ connectionString: t.testDb.url, options: `-c search_path=${t.testDb.schema}` });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM callback_deliveries WHERE id = $1 FOR UPDATE', [id]);
        // Past half the lease: the next look's renewal waits for the row.
        t.clock.advance(LEASE_MS * 0.6);
        // Asked outside the holder's transaction: a session reads pg_stat_activity once a transaction, and a holder
        // that asked before the renewal came to wait saw none ever after.
        const waiting = async (): Promise<number> =>
          (
            await t.testDb.db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE callback_deliveries d SET smpp_lease_until%'`,
            )
          )[0]!.n;
        await waitFor(async () => (await waiting()) > 0, {
          timeoutMs: 10_000,
          describe: async () => `no renewal waiting for the row; lease ${(await leaseOf()).until.toISOString()}`,
        });
        // The client refuses the receipt meanwhile: its POST is to be given back, tried again after RETRY_MS.
        const [pdu] = receiver.held.splice(0);
        receiver.session.send(pdu!.response({ command_status: ESME_RSYSERR }));
        await waitFor(() => t.herald.smppServer!.bound().every((cs) => cs.delivers.size === 0), {
          timeoutMs: 10_000,
          describe: () => 'the refusal not read',
        });
        const givenBackTo = t.clock.now().getTime() + RETRY_MS;
        await holder.query('COMMIT');
        await waitFor(async () => (await leaseOf()).until.getTime() === givenBackTo, {
          timeoutMs: 10_000,
          describe: async () =>
            `lease ${(await leaseOf()).until.toISOString()}, ${new Date(givenBackTo).toISOString()} expected`,
        });
      } finally {
        await holder.end();
      }
    });
  },
);
