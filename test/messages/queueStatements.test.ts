import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import {
  type ClaimedMessage,
  claimLimits,
  messageClaimDue,
  messageClaimsEnd,
  messageNextDue,
} from '../../src/messages/claimSql.js';
import { messageExpireDue } from '../../src/messages/expirySql.js';
import { historyColumns, type HistoryRow, historyOf } from '../../src/messages/messageObject.js';
import { messageApplyTransitions, messageNoteIgnored } from '../../src/messages/transitionSql.js';
import { submissionMatchReceipts, submissionSetPartStates } from '../../src/messages/submissionSql.js';
import { queueBefore } from '../../src/messages/messagePartitions.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import {
  type HistoryEntry,
  mergeReceipt,
  retryTransition,
  sentTransition,
  statusTransition,
} from '../../src/messages/transitions.js';
import { uuid7, uuidBound } from '../../src/util/uuid7.js';
import { ENGINES } from '../helpers/engines.js';
import { planOf, rowsRead, scansOf, subplanNodes } from '../helpers/plans.js';
import { describeClaimSkipsLocked, ownRowsTests } from '../helpers/transactions.js';
import { insertAccount, insertCallbackTarget, insertMessage, type MessageFields } from '../factories/rows.js';
import { messageRows, messagesSet } from '../helpers/messageRows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
/** The ids a submitter's claims read (QueueFloor.ids): the plans below are those of its statements. */
const QUEUE_IDS = {
  from: uuidBound(T0.getTime() - 86_400_000, 'low'),
  to: queueBefore(T0),
};
const LEASE_MS = 60_000;
/** Message ids in id order, for messages due at the same instant. */
const IDS = [
  '01900000-0000-7000-8000-000000000001',
  '01900000-0000-7000-8000-000000000002',
  '01900000-0000-7000-8000-000000000003',
];

interface Row extends HistoryRow {
  status: string;
  read_status: string | null;
  error_code: number | null;
  due_at: Date | null;
  lease_expires_at: Date | null;
  attempts: number;
  price_final: boolean;
  price_refunded: boolean;
}

/**
 * `n` parts recorded before, never analysed: a new installation's table, or one whose statistics lag, which the
 * planner takes for small.
 */
const oldSubmissions = (db: Queryable, n: number): Promise<unknown> =>
  db.query(
    `INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
     SELECT 'smsc', 'old-' || n, 1, gen_random_uuid(), 1, 1, $1 FROM generate_series(1, $2::int) n`,
    [T0, n],
  );

const row = async (db: Queryable, id: string): Promise<Row> =>
  (
    await db.query<Row>(
      `SELECT status, read_status, error_code, due_at, lease_expires_at, attempts, price_final,
       price_refunded, ${historyColumns('messages')} FROM ${messageRows()} WHERE id = $1`,
      [id],
    )
  )[0]!;
/** The history as the message object shows it (an outbound message's first entry is implied, not stored). */
const statuses = (r: Row): string[] => historyOf(r).map((h) => h.status);
/** History entries with their times as ISO strings: those the database writes read `+00:00`, not `Z`. */
const entries = (r: Row): HistoryEntry[] => historyOf(r).map((h) => ({ ...h, at: new Date(h.at).toISOString() }));
/** The claim records that hold a message: their ids and leases. */
const recordsOf = async (db: Queryable, id: string): Promise<{ id: number; lease_expires_at: Date }[]> =>
  (
    await db.query<{ id: number; lease_expires_at: Date }>(
      'SELECT id, lease_expires_at FROM message_claims WHERE $1 = ANY(ids) ORDER BY id',
      [id],
    )
  ).map((r) => ({ id: Number(r.id), lease_expires_at: r.lease_expires_at }));
const claimedIds = async (db: Queryable, now: Date, limit = 100): Promise<string[]> =>
  (await messageClaimDue(db, now, claimLimits(limit), LEASE_MS)).map((m) => m.id).sort();

/** The delivery queue's statements on their own, each test in a transaction rolled back at its end. */
describe.each(ENGINES)('delivery SQL: claim, transitions, expiry (%s)', (engine) => {
  const own = ownRowsTests(engine);
  /** A message of a new account, due at T0 by default. */
  const newMessage = async (tx: Queryable, fields: Partial<MessageFields> = {}): Promise<string> =>
    insertMessage(tx, { accountId: (await insertAccount(tx)).id, createdAt: T0, ...fields });

  describe('messageNextDue', () => {
    own('is the earliest due time of any lane (channel, traffic type) in sending, null when none waits', async (tx) => {
      expect(await messageNextDue(tx)).toBeNull();
      const accountId = (await insertAccount(tx)).id;
      await insertMessage(tx, { accountId, channel: 'SMS', trafficType: 'PROMO', dueAt: at(30) });
      await insertMessage(tx, { accountId, channel: 'VK', trafficType: 'AUTHORIZE', dueAt: at(20) });
      await insertMessage(tx, { accountId, status: 'sent', dueAt: at(5) });
      expect(await messageNextDue(tx)).toEqual(at(20));
    });

    own(
      'is null while the only messages waiting are held (due at infinity: a paused dispatch, a fraud hold)',
      async (tx) => {
        const accountId = (await insertAccount(tx)).id;
        await insertMessage(tx, { accountId, channel: 'SMS', dueAt: 'infinity' });
        expect(await messageNextDue(tx)).toBeNull();
        await insertMessage(tx, { accountId, channel: 'SMS', dueAt: at(7) });
        expect(await messageNextDue(tx)).toEqual(at(7));
      },
    );

    if (engine === 'postgres')
      own('reads one entry of each lane of messages_sending_due, no sort of the whole queue', async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        const plan = await planOf(tx, (explaining) => messageNextDue(explaining, QUEUE_IDS));
        const text = JSON.stringify(plan);
        expect(text).toContain('"Index Name":"messages_sending_due"');
        expect(text).not.toContain('"Node Type":"Sort"');
      });
  });

  describe('messageClaimDue', () => {
    own('claims only messages in sending that are due by now', async (tx) => {
      const early = await newMessage(tx, { dueAt: at(-10) });
      const onTime = await newMessage(tx, { dueAt: at(0) });
      await newMessage(tx, { dueAt: at(1) });
      // Due, but waiting for something else than a send attempt: a receipt, a read; or final.
      await newMessage(tx, { status: 'sent', dueAt: at(-10) });
      await newMessage(tx, { status: 'delivered', channel: 'VK', dueAt: at(-10) });
      await newMessage(tx, { status: 'unsent' });
      expect(await claimedIds(tx, at(0))).toEqual([early, onTime].sort());
      expect(await claimedIds(tx, at(0))).toEqual([]);
    });

    own('takes the earliest due first, by id among those due at the same instant, at most `limit`', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      // Written in the reverse of id order, so that neither the heap nor an index on the due time alone has them in
      // order.
      for (const id of [...IDS].reverse()) await insertMessage(tx, { accountId, id, createdAt: T0, dueAt: at(-5) });
      const earliest = await insertMessage(tx, { accountId, createdAt: T0, dueAt: at(-6) });
      const [first, ...none] = await messageClaimDue(tx, at(0), claimLimits(1), LEASE_MS);
      expect(none).toEqual([]);
      expect(first!.id).toBe(earliest);
      expect(await claimedIds(tx, at(0), 2)).toEqual(IDS.slice(0, 2));
      expect(await claimedIds(tx, at(0), 2)).toEqual(IDS.slice(2));
    });

    own(
      'claims as one record of the ids it took and its lease: the messages unchanged, held until the record goes',
      async (tx) => {
        const id = await newMessage(tx, { ttl: 3600 });
        const before = await row(tx, id);
        const [claimed] = await messageClaimDue(tx, at(5), claimLimits(10), LEASE_MS);
        expect(claimed).toMatchObject({
          id,
          attempts: 0,
          expires_ms: at(3600).getTime(),
          planned_send_ms: T0.getTime(),
        });
        expect(claimed!.claim_id).toEqual(expect.any(Number));
        expect(await row(tx, id)).toEqual(before);
        expect(await recordsOf(tx, id)).toEqual([{ id: claimed!.claim_id, lease_expires_at: at(65) }]);
        // Held until the lease runs out, and the next due time is then; then any worker claims it again (its worker
        // died), and the record that ran out goes.
        expect(await claimedIds(tx, at(64.999))).toEqual([]);
        expect(await messageNextDue(tx)).toEqual(at(65));
        const [again] = await messageClaimDue(tx, at(65), claimLimits(10), LEASE_MS);
        expect(again).toMatchObject({ id, attempts: 0 });
        expect(await recordsOf(tx, id)).toEqual([{ id: again!.claim_id, lease_expires_at: at(125) }]);
        // Its retry written, it leaves the record at once: it falls due at its next try, not when the claim's last
        // outcome is written nor at the lease's end; a stop would take it as any waiting message.
        const accountId = again!.account_id;
        const retry = { accountId, id, dueAt: at(70), at: at(66), reason: 'not bound', attempt: 0 };
        expect([
          ...(await messageApplyTransitions(tx, [retryTransition({ ...retry, claim: again!.claim_id! })])),
        ]).toEqual([]);
        expect(await recordsOf(tx, id)).toEqual([]);
        const [record] = await tx.query<{ ids: string[] }>('SELECT ids FROM message_claims WHERE id = $1', [
          again!.claim_id,
        ]);
        expect(record!.ids).toEqual([]);
        expect(await messageNextDue(tx)).toEqual(at(70));
        expect(await claimedIds(tx, at(70))).toEqual([id]);
        await messageClaimsEnd(tx, [again!.claim_id!]);
        expect(await tx.query('SELECT 1 FROM message_claims WHERE id = $1', [again!.claim_id])).toEqual([]);
      },
    );

    own('deletes the records it is given as ended, and only those of the unexpired ones', async (tx) => {
      const first = await newMessage(tx);
      const second = await newMessage(tx);
      const [a] = await messageClaimDue(tx, at(0), claimLimits(1), LEASE_MS);
      const [b] = await messageClaimDue(tx, at(1), claimLimits(1), LEASE_MS);
      expect([a!.id, b!.id].sort()).toEqual([first, second].sort());
      // Both outcomes written: the messages left `sending`, as they have when their submitter ends a record.
      await messageApplyTransitions(
        tx,
        [a!, b!].map((m) => sentTransition({ accountId: m.account_id, id: m.id, connectorId: 'c', at: at(2) })),
      );
      const third = await newMessage(tx, { dueAt: at(2) });
      const claimed = await messageClaimDue(tx, at(3), claimLimits(10), LEASE_MS, undefined, [a!.claim_id!]);
      expect(claimed.map((m) => m.id)).toEqual([third]);
      const left = await tx.query<{ id: string }>('SELECT id FROM message_claims ORDER BY id');
      expect(left.map((r) => Number(r.id))).toEqual([b!.claim_id, claimed[0]!.claim_id]);
    });

    own("clears a lease in the row that ran out (the fast lane's) and counts its attempt", async (tx) => {
      const id = await newMessage(tx, { ttl: 3600 });
      // As the fast lane stores a message: due at its lease's end, leased, its first attempt counted.
      await messagesSet(tx, { ids: [id] }, { due_at: at(60), lease_expires_at: at(60), attempts: 1 });
      expect(await claimedIds(tx, at(59))).toEqual([]);
      const [claimed] = await messageClaimDue(tx, at(60), claimLimits(10), LEASE_MS);
      expect(claimed).toMatchObject({ id, attempts: 2 });
      expect(await row(tx, id)).toMatchObject({
        status: 'sending',
        due_at: at(60),
        lease_expires_at: null,
        attempts: 2,
      });
      // The fast lane's outcome, written late, is stale; the claim's applies.
      const accountId = claimed!.account_id;
      const retry = (attempt: number, claim?: number) =>
        retryTransition({ accountId, id, dueAt: at(90), at: at(61), reason: 'not bound', attempt, claim });
      expect([...(await messageApplyTransitions(tx, [retry(1)]))]).toEqual([id]);
      expect([...(await messageApplyTransitions(tx, [retry(2, claimed!.claim_id!)]))]).toEqual([]);
      expect((await row(tx, id)).due_at).toEqual(at(90));
    });

    own(
      'is an index scan of messages_sending_due per channel and traffic type that stops at the limit, with no sort',
      async (tx) => {
        await manyDueMessages(tx, 'sending', T0);
        // The plan for these values, and the generic one the PostgreSQL driver keeps (genericPlan).
        for (const generic of [false, true]) {
          const plan = await planOf(
            tx,
            (explaining) => messageClaimDue(explaining, at(0), claimLimits(500), LEASE_MS, QUEUE_IDS),
            { generic },
          );
          for (const type of ['t0', 't1', 't2', 't3']) {
            // Per channel, its limit (what the types before left: a count of their few rows) over the locked scan.
            const nodes = subplanNodes(plan, `CTE ${type}`);
            const types = nodes.map((n) => n.type);
            expect(types.slice(0, 2)).toEqual(['Nested Loop', 'CTE Scan']);
            expect(types).not.toContain('Sort');
            const lock = types.indexOf('LockRows');
            expect(types.slice(2, lock)).toContain('Limit');
            expect(nodes[lock + 1]).toMatchObject({ type: 'Index Scan', index: 'messages_sending_due' });
          }
        }
      },
    );

    own(
      'reads no message to clear run-out leases when none it took had one, whatever its generic plan was made on',
      async (tx) => {
        // The generic plan a worker's connection keeps, made on its first claim while the queue's partition was
        // empty (a new installation, a new week), took the span of ids for small: it read every row of the span for
        // the leases (23,000 rows a claim in the roles benchmark) until the partition's next analysis.
        const plan = await planOf(
          tx,
          (explaining) => messageClaimDue(explaining, at(0), claimLimits(500), LEASE_MS, QUEUE_IDS),
          // Due rows of the span come after the plan, unanalysed, as between two runs of autovacuum.
          { generic: true, partitions: true, later: { meanwhile: () => manyDueMessages(tx, 'sending', T0, false) } },
        );
        // The premise: the claim's lanes read the span's rows, some 500 (EXPLAIN gives a mean a loop, rounded).
        const lanes = ['t0', 't1', 't2', 't3'].map((t) => rowsRead(plan, `CTE ${t}`, 'messages'));
        expect(lanes.reduce((sum, rows) => sum + rows, 0)).toBeGreaterThan(450);
        expect(rowsRead(plan, 'CTE unleased', 'messages')).toBe(0);
      },
    );

    own(
      'claims by traffic type first, then by due time, and keeps the urgent share from SERVICE and PROMO',
      async (tx) => {
        const accountId = (await insertAccount(tx)).id;
        const due = (trafficType: string, seconds: number) =>
          insertMessage(tx, { accountId, trafficType, dueAt: at(seconds) });
        const promo = await due('PROMO', -30);
        const service = await due('SERVICE', -20);
        const transact = await due('TRANSACT', -5);
        const authorize = await due('AUTHORIZE', -1);
        const laterAuthorize = await due('AUTHORIZE', 0);
        await due('AUTHORIZE', 10); // not due yet
        const ids = async (limit: number, bulk?: number) =>
          (await messageClaimDue(tx, at(0), claimLimits(limit, bulk), LEASE_MS)).map((m) => m.id);
        // Two places, of which none for bulk: the two AUTHORIZE messages, the earlier due first.
        expect(await ids(2, 0)).toEqual([authorize, laterAuthorize]);
        // Bulk may take one of three places: TRANSACT, then SERVICE (due before PROMO but of an earlier type).
        expect(await ids(3, 1)).toEqual([transact, service]);
        expect(await ids(3)).toEqual([promo]);
      },
    );

    own("takes each channel's messages within its own limit, and the limits in all across channels", async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      const due = (channel: MessageFields['channel'], trafficType: string, seconds: number) =>
        insertMessage(tx, { accountId, channel, trafficType, dueAt: at(seconds) });
      // A VK backlog due long before the SMS messages.
      const vk = [await due('VK', 'PROMO', -60), await due('VK', 'PROMO', -59), await due('VK', 'AUTHORIZE', -58)];
      const sms = [await due('SMS', 'PROMO', -10), await due('SMS', 'PROMO', -9)];
      const code = await due('SMS', 'AUTHORIZE', -1);
      const claim = async (channels: { channel: 'SMS' | 'VK'; any: number; bulk: number }[], total = 10) =>
        (await messageClaimDue(tx, at(0), { total, bulk: total, channels }, LEASE_MS)).map((m) => m.id);
      // VK has no room: its backlog does not stand in the way of SMS, and a channel not listed takes nothing.
      expect(await claim([{ channel: 'SMS', any: 1, bulk: 1 }])).toEqual([code]);
      // VK may take one, of which no bulk: its AUTHORIZE message, not the PROMO ones due before it.
      expect(await claim([{ channel: 'VK', any: 1, bulk: 0 }])).toEqual([vk[2]]);
      // Two in all: by due time across channels once the urgent ones are taken.
      expect(
        await claim(
          [
            { channel: 'SMS', any: 5, bulk: 5 },
            { channel: 'VK', any: 5, bulk: 5 },
          ],
          2,
        ),
      ).toEqual([vk[0], vk[1]]);
      expect(await claim([{ channel: 'SMS', any: 5, bulk: 5 }])).toEqual(sms);
    });

    own('keeps the bulk limit in all across channels, after every urgent message', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      const due = (channel: MessageFields['channel'], trafficType: string, seconds: number) =>
        insertMessage(tx, { accountId, channel, trafficType, dueAt: at(seconds) });
      const promoVk = await due('VK', 'PROMO', -30);
      await due('SMS', 'PROMO', -20);
      const codeSms = await due('SMS', 'AUTHORIZE', -1);
      const codeVk = await due('VK', 'TRANSACT', -2);
      const claimed = await messageClaimDue(tx, at(0), { ...claimLimits(10, 10), bulk: 1 }, LEASE_MS);
      expect(claimed.map((m) => m.id)).toEqual([codeSms, codeVk, promoVk]);
    });
  });

  describe('messageApplyTransitions', () => {
    own(
      'applies a transition only where the message is in one of its from statuses, and returns those that did not move',
      async (tx) => {
        const accountId = (await insertAccount(tx)).id;
        const ids: Record<string, string> = {};
        for (const status of ['sending', 'sent', 'delivered', 'undelivered', 'unsent']) {
          ids[status] = await insertMessage(tx, { accountId, status });
        }
        const transitions = Object.values(ids).map((id) =>
          statusTransition({ accountId, id, status: 'delivered', at: at(2), errorCode: null }),
        );
        const unmoved = await messageApplyTransitions(tx, transitions);
        expect([...unmoved].sort()).toEqual([ids.delivered!, ids.undelivered!, ids.unsent!].sort());
        expect((await row(tx, ids.sending!)).status).toBe('delivered');
        expect((await row(tx, ids.sent!)).status).toBe('delivered');
        expect((await row(tx, ids.undelivered!)).status).toBe('undelivered');
        expect((await row(tx, ids.unsent!)).status).toBe('unsent');
        // A read status is set once: an unread after a read changes nothing.
        const read = await insertMessage(tx, { accountId, channel: 'VK', status: 'delivered', readStatus: 'read' });
        const late = statusTransition({ accountId, id: read, status: 'unread', at: at(3), errorCode: null });
        expect([...(await messageApplyTransitions(tx, [late]))]).toEqual([read]);
        expect((await row(tx, read)).read_status).toBe('read');
      },
    );

    own(
      'refunds the reserved price once when a message becomes unsent: one ledger entry per account and currency',
      async (tx) => {
        const accountId = (await insertAccount(tx, { balance: 100 })).id;
        const a = await insertMessage(tx, { accountId, price: 2.5 });
        const b = await insertMessage(tx, { accountId, price: 1.5 });
        const free = await insertMessage(tx, { accountId, price: 0 });
        const unsent = (id: string, seconds: number) =>
          statusTransition({ accountId, id, status: 'unsent', at: at(seconds), errorCode: 1 });
        const money = async () => ({
          balance: (
            await tx.query<{ amount: string }>('SELECT amount FROM account_balances WHERE account_id = $1', [accountId])
          ).map((r) => Number(r.amount)),
          refunds: (
            await tx.query<{ amount: string; created_at: Date }>(
              "SELECT amount, created_at FROM balance_ledger WHERE account_id = $1 AND kind = 'refund' ORDER BY id",
              [accountId],
            )
          ).map((r) => [Number(r.amount), r.created_at]),
        });

        expect(await messageApplyTransitions(tx, [unsent(a, 2), unsent(b, 3), unsent(free, 3)])).toEqual(new Set());
        expect(await money()).toEqual({ balance: [104], refunds: [[4, at(3)]] });
        expect(await row(tx, a)).toMatchObject({
          status: 'unsent',
          price_final: true,
          price_refunded: true,
          due_at: null,
        });
        expect(await row(tx, free)).toMatchObject({ status: 'unsent', price_final: true, price_refunded: false });
        // Told again: unsent is final, nothing moves and nothing is refunded twice.
        expect(await messageApplyTransitions(tx, [unsent(a, 4)])).toEqual(new Set([a]));
        expect(await money()).toEqual({ balance: [104], refunds: [[4, at(3)]] });
        // Undelivered is no refund: the carrier took the message.
        const taken = await insertMessage(tx, { accountId, price: 2 });
        await messageApplyTransitions(tx, [
          statusTransition({ accountId, id: taken, status: 'undelivered', at: at(5), errorCode: 1 }),
        ]);
        expect(await money()).toEqual({ balance: [104], refunds: [[4, at(3)]] });
      },
    );

    own('records sent and delivered first when a read comes before them, and calls back in that order', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      const callbackTargetId = await insertCallbackTarget(tx, accountId, 'http://127.0.0.1:9/read', T0);
      const fields = {
        accountId,
        channel: 'VIBER' as const,
        callbackTargetId,
        callbackEvents: ['sent', 'delivered', 'read'],
      };
      const sending = await insertMessage(tx, fields);
      const sent = await insertMessage(tx, { ...fields, status: 'sent', dueAt: at(90_000) });
      const read = (id: string) => statusTransition({ accountId, id, status: 'read', at: at(7), errorCode: null });
      expect(await messageApplyTransitions(tx, [read(sending), read(sent)])).toEqual(new Set());
      for (const id of [sending, sent]) {
        const r = await row(tx, id);
        expect(r).toMatchObject({ status: 'delivered', read_status: 'read', due_at: null, status_at: at(7) });
        expect(entries(r).slice(-2)).toEqual([
          { status: 'delivered', at: at(7).toISOString() },
          { status: 'read', at: at(7).toISOString() },
        ]);
      }
      expect(statuses(await row(tx, sending))).toEqual(['sending', 'sent', 'delivered', 'read']);
      expect((await row(tx, sending)).sent_at).toEqual(at(7));
      const events = await tx.query<{ event: string; status: string }>(
        "SELECT event, status FROM callback_events WHERE message_id = $1 AND event <> 'price' ORDER BY txid, id",
        [sending],
      );
      expect(events.map((e) => [e.event, e.status])).toEqual([
        ['sent', 'sent'],
        ['delivered', 'delivered'],
        ['read', 'read'],
      ]);
    });

    own('records the parts a carrier accepted with the sent transition, once when told twice', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      const id = await insertMessage(tx, { accountId, totalParts: 2 });
      const transition = sentTransition({ accountId, id, connectorId: 'smsc', at: at(1) });
      const submission = { connectorId: 'smsc', carrierIds: ['c1', 'c2'], accountId, id, at: at(1) };
      expect(await messageApplyTransitions(tx, [transition], [submission])).toEqual(new Set());
      // A flush told again (its first try's answer was lost): nothing moves, nothing is recorded twice.
      expect(await messageApplyTransitions(tx, [transition], [submission])).toEqual(new Set([id]));
      const parts = await tx.query<{ carrier_id: string; message_id: string; part: number; parts: number }>(
        "SELECT carrier_id, message_id, part, parts FROM submissions WHERE connector_id = 'smsc' ORDER BY carrier_id",
      );
      expect(parts).toEqual([
        { carrier_id: 'c1', message_id: id, part: 1, parts: 2 },
        { carrier_id: 'c2', message_id: id, part: 2, parts: 2 },
      ]);
      expect(statuses(await row(tx, id))).toEqual(['sending', 'sent']);
    });

    own(
      "checks a batch's parts at its first run by one probe of submissions' key a part, however few it holds",
      async (tx) => {
        // A join planned on such a table read all of it into a hash on every flush (1.4 ms a call at 18,000 rows).
        await oldSubmissions(tx, 5000);
        const accountId = (await insertAccount(tx)).id;
        const ids = [await insertMessage(tx, { accountId }), await insertMessage(tx, { accountId })];
        const plan = await planOf(
          tx,
          (explaining) =>
            messageApplyTransitions(
              explaining,
              ids.map((id) => sentTransition({ accountId, id, connectorId: 'smsc', at: at(1) })),
              ids.map((id) => ({ connectorId: 'smsc', carrierIds: [`new-${id}`], accountId, id, at: at(1) })),
            ),
          { asDb: true },
        );
        expect(scansOf(plan, 'submissions')).toEqual(['ModifyTable', 'Index Only Scan submissions_pkey']);
      },
    );

    own("finds each receipt's submission by one probe of its key, however few rows submissions holds", async (tx) => {
      await oldSubmissions(tx, 5000);
      const receipts = ['r1', 'r2'].map((carrierId) => ({
        connectorId: 'smsc',
        carrierId,
        state: 'delivered' as const,
        errorCode: null,
        at: at(2),
      }));
      const plan = await planOf(tx, (explaining) => submissionMatchReceipts(explaining, receipts));
      expect(scansOf(plan, 'submissions')).toEqual(['Index Scan submissions_pkey']);
      // And a multi-part message's receipts, which lock and set their parts' states.
      const parts = await planOf(tx, (explaining) =>
        submissionSetPartStates(
          explaining,
          receipts.map((receipt) => ({ receipt, accountId: 1, messageId: uuid7(T0.getTime()), parts: 2 })),
        ),
      );
      expect(scansOf(parts, 'submissions')).toEqual([
        'ModifyTable',
        'Index Scan submissions_pkey',
        'Index Scan submissions_pkey',
      ]);
    });

    own(
      'sets the due time the new state waits for: a retry its time, sent and delivered-unread the end of the lifetime',
      async (tx) => {
        const accountId = (await insertAccount(tx)).id;
        const message = (channel: MessageFields['channel'] = 'SMS') =>
          insertMessage(tx, { accountId, channel, ttl: 600, createdAt: T0 });
        const [retried, sent, deliveredSms, deliveredVk] = [
          await message(),
          await message(),
          await message(),
          await message('VK'),
        ];
        await messageClaimDue(tx, at(0), claimLimits(10), LEASE_MS);
        await messageApplyTransitions(tx, [
          retryTransition({ accountId, id: retried, dueAt: at(30), at: at(1), reason: 'throttled' }),
          sentTransition({ accountId, id: sent, connectorId: 'c', at: at(1) }),
          statusTransition({ accountId, id: deliveredSms, status: 'delivered', at: at(1), errorCode: null }),
          statusTransition({ accountId, id: deliveredVk, status: 'delivered', at: at(1), errorCode: null }),
        ]);
        expect(await row(tx, retried)).toMatchObject({ status: 'sending', due_at: at(30), lease_expires_at: null });
        expect(await row(tx, sent)).toMatchObject({
          status: 'sent',
          due_at: at(600),
          lease_expires_at: null,
          sent_at: at(1),
        });
        expect(await row(tx, deliveredSms)).toMatchObject({ status: 'delivered', due_at: null });
        expect(await row(tx, deliveredVk)).toMatchObject({ status: 'delivered', due_at: at(600), read_status: null });
      },
    );

    own(
      "finds a batch's messages by the primary key, updates the versions it read by ctid in lock order: no scan",
      async (tx) => {
        // In the batch's partition: the statement reads no other.
        await manyDueMessages(tx, 'sending', T0);
        const accountId = (await insertAccount(tx)).id;
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await insertMessage(tx, { accountId, createdAt: T0 }));
        const transitions = ids.map((id) =>
          statusTransition({ accountId, id, status: 'delivered', at: at(2), errorCode: null }),
        );
        // In a transaction (locked first), and outside one (its first run: the update locks them); planned for these
        // values, and the generic plan the PostgreSQL driver keeps (genericPlan).
        for (const [asDb, generic] of [false, true].flatMap((a) => [false, true].map((g) => [a, g]))) {
          const plan = await planOf(tx, (explaining) => messageApplyTransitions(explaining, transitions), {
            asDb,
            generic,
          });
          const locked = subplanNodes(plan, 'CTE locked');
          expect(locked).toContainEqual({ type: 'Index Scan', index: 'messages_pkey' });
          const moved = subplanNodes(plan, 'CTE moved');
          // The first run locks the rows as it updates them: one by one, in the batch's sorted order (the global
          // lock order), each found by its ctid.
          expect(moved.map((n) => n.type)).toEqual([
            'ModifyTable',
            'Nested Loop',
            'Subquery Scan',
            'Sort',
            'CTE Scan',
            'Tid Scan',
          ]);
          for (const nodes of [locked, moved]) expect(nodes.map((n) => n.type)).not.toContain('Seq Scan');
          // The reroute check is planned once (inlined, each reference to it was planned again: 20 times).
          expect(scansOf(plan, 'routes')).toHaveLength(1);
          // The keys sorted (the global lock order), then one probe a key, locked as it is found at the second run.
          expect(subplanNodes(plan, 'CTE locked').map((n) => n.type)).toEqual([
            'Nested Loop',
            'Sort',
            'CTE Scan',
            ...(asDb ? ['Limit'] : ['Subquery Scan', 'Limit', 'LockRows']),
            'Index Scan',
          ]);
        }
      },
    );
  });

  describe('a claim whose lease ran out', () => {
    own(
      "changes nothing with its retry or end once the message was claimed again; the newer claim's outcome applies",
      async (tx) => {
        const id = await newMessage(tx, { ttl: 3600 });
        const [stale] = await messageClaimDue(tx, at(0), claimLimits(10), LEASE_MS);
        // The first claim's outcome is not written before its lease ends (a stalled process, a clock that jumped):
        // the next claim takes the message, and the first claim's record goes.
        const [fresh] = await messageClaimDue(tx, at(61), claimLimits(10), LEASE_MS);
        expect(fresh!.claim_id).not.toBe(stale!.claim_id);
        expect(await recordsOf(tx, id)).toEqual([{ id: fresh!.claim_id, lease_expires_at: at(121) }]);
        const accountId = stale!.account_id;
        const retry = (claim: ClaimedMessage, second: number) =>
          retryTransition({
            accountId,
            id,
            dueAt: at(second + 2),
            at: at(second),
            reason: 'not bound',
            attempt: claim.attempts,
            claim: claim.claim_id!,
          });
        const unsent = (claim: ClaimedMessage, second: number) =>
          statusTransition({
            accountId,
            id,
            status: 'unsent',
            at: at(second),
            errorCode: 1,
            attempt: claim.attempts,
            claim: claim.claim_id!,
          });

        // Applied, the stale retry would make the message due while the newer claim sends it: it would go twice.
        expect([...(await messageApplyTransitions(tx, [retry(stale!, 3)]))]).toEqual([id]);
        expect([...(await messageApplyTransitions(tx, [unsent(stale!, 4)]))]).toEqual([id]);
        expect(await row(tx, id)).toMatchObject({ status: 'sending', due_at: at(0), lease_expires_at: null });
        expect(await claimedIds(tx, at(62))).toEqual([]);

        expect([...(await messageApplyTransitions(tx, [retry(fresh!, 62)]))]).toEqual([]);
        expect(await row(tx, id)).toMatchObject({ status: 'sending', due_at: at(64), lease_expires_at: null });
        // A retry does not end the claim: the same claim's end still applies.
        expect([...(await messageApplyTransitions(tx, [unsent(fresh!, 63)]))]).toEqual([]);
        expect((await row(tx, id)).status).toBe('unsent');
      },
    );
  });

  describe('the stored history', () => {
    const stored = async (tx: Queryable, id: string): Promise<unknown[]> =>
      (await tx.query<{ history: unknown[] }>(`SELECT history FROM ${messageRows()} WHERE id = $1`, [id]))[0]!.history;

    own('stores a first sent entry without what sent_at and the connector say, and shows it whole', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      const mine = (fields: Partial<MessageFields> = {}) => insertMessage(tx, { accountId, createdAt: T0, ...fields });
      const [apart, merged] = [await mine(), await mine()];
      await messageApplyTransitions(tx, [sentTransition({ accountId, id: apart, connectorId: 'smsc', at: at(1) })]);
      expect(await stored(tx, apart)).toEqual([{ status: 'sent' }]);
      await messageApplyTransitions(tx, [
        statusTransition({ accountId, id: apart, status: 'delivered', at: at(3), errorCode: null, fromReceipt: true }),
      ]);
      // Its receipt together with its submission: one transition, one update.
      const both = sentTransition({ accountId, id: merged, connectorId: 'smsc', at: at(1) });
      expect(mergeReceipt(both, { status: 'delivered', at: at(3), errorCode: null })).toBe(true);
      await messageApplyTransitions(tx, [both]);
      for (const id of [apart, merged]) {
        // Each as its status alone: the row's sent_at, first connector and status_at say the rest.
        expect(await stored(tx, id)).toEqual([{ status: 'sent' }, { status: 'delivered' }]);
        expect(entries(await row(tx, id))).toEqual([
          { status: 'sending', at: T0.toISOString() },
          { status: 'sent', at: at(1).toISOString(), connector: 'smsc' },
          { status: 'delivered', at: at(3).toISOString() },
        ]);
      }
    });

    own(
      'stores a final entry without its time, with what else it says, and shows it at the status time',
      async (tx) => {
        const accountId = (await insertAccount(tx)).id;
        const id = await insertMessage(tx, { accountId, createdAt: T0, status: 'sent', dueAt: at(600) });
        await messageApplyTransitions(tx, [
          statusTransition({ accountId, id, status: 'undelivered', at: at(4), errorCode: 13, fromReceipt: true }),
        ]);
        expect(await stored(tx, id)).toEqual([{ status: 'undelivered', errorCode: 13 }]);
        expect(entries(await row(tx, id)).at(-1)).toEqual({
          status: 'undelivered',
          at: at(4).toISOString(),
          errorCode: 13,
        });
        // A late receipt after it is noted whole, and the final entry keeps its time.
        const late = statusTransition({
          accountId,
          id,
          status: 'delivered',
          at: at(9),
          errorCode: null,
          fromReceipt: true,
        });
        expect([...(await messageApplyTransitions(tx, [late]))]).toEqual([id]);
        await messageNoteIgnored(tx, [late]);
        expect(entries(await row(tx, id)).slice(-2)).toEqual([
          { status: 'undelivered', at: at(4).toISOString(), errorCode: 13 },
          { status: 'delivered', at: at(9).toISOString(), ignored: true },
        ]);
      },
    );

    own('keeps a sent entry whole where the row does not say it: no connector, a row stored before', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      // A read before any sent: the sent entry is the read's time and names no connector.
      const early = await insertMessage(tx, { accountId, createdAt: T0, channel: 'VIBER' });
      await messageApplyTransitions(tx, [
        statusTransition({ accountId, id: early, status: 'read', at: at(7), errorCode: null }),
      ]);
      expect((await stored(tx, early))[0]).toEqual({ status: 'sent', at: expect.any(String) });
      expect(entries(await row(tx, early))[1]).toEqual({ status: 'sent', at: at(7).toISOString() });
      // Stored whole before this was so: shown as stored.
      const old = await newMessage(tx);
      await messagesSet(
        tx,
        { ids: [old] },
        {
          status: 'sent',
          sent_at: at(2),
          connector_id: 'now',
          history: [{ status: 'sent', at: at(1).toISOString(), connector: 'then' }],
        },
      );
      expect(entries(await row(tx, old))[1]).toEqual({ status: 'sent', at: at(1).toISOString(), connector: 'then' });
    });
  });

  describe('the history of a message that waits', () => {
    own(
      'records a wait once while its reason stays the same, with its next try, and again when the reason changes',
      async (tx) => {
        const id = await newMessage(tx);
        const { account_id: accountId } = (
          await tx.query<{ account_id: number }>('SELECT account_id FROM messages WHERE id = $1', [id])
        )[0]!;
        const retry = (second: number, reason: string) =>
          messageApplyTransitions(tx, [
            retryTransition({ accountId, id, dueAt: at(second + 2), at: at(second), reason }),
          ]);
        for (let second = 0; second < 20; second += 2) await retry(second, 'no connector of the route is available');
        expect(entries(await row(tx, id)).slice(1)).toEqual([
          {
            status: 'sending',
            at: at(0).toISOString(),
            retryAt: at(20).toISOString(),
            detail: 'no connector of the route is available',
          },
        ]);
        await retry(20, 'outside its send window');
        await retry(22, 'outside its send window');
        await retry(24, 'no connector of the route is available');
        expect(entries(await row(tx, id)).slice(1)).toMatchObject([
          { at: at(0).toISOString(), detail: 'no connector of the route is available' },
          { at: at(20).toISOString(), retryAt: at(24).toISOString(), detail: 'outside its send window' },
          { at: at(24).toISOString(), retryAt: at(26).toISOString(), detail: 'no connector of the route is available' },
        ]);
        expect((await row(tx, id)).due_at).toEqual(at(26));
      },
    );
  });

  describe('messageExpireDue', () => {
    own('makes a sent message undelivered (no receipt) at the end of its lifetime, not before', async (tx) => {
      const id = await newMessage(tx, { status: 'sent', dueAt: at(600) });
      expect(await messageExpireDue(tx, at(599), 100, DELIVERY_ERRORS)).toEqual([]);
      const [expired, ...none] = await messageExpireDue(tx, at(600), 100, DELIVERY_ERRORS);
      expect(none).toEqual([]);
      expect(expired).toMatchObject({ id, outcome: 'undelivered' });
      const r = await row(tx, id);
      expect(r).toMatchObject({
        status: 'undelivered',
        error_code: DELIVERY_ERRORS.noReceipt,
        due_at: null,
        status_at: at(600),
      });
      expect(entries(r).at(-1)).toEqual({
        status: 'undelivered',
        at: at(600).toISOString(),
        errorCode: DELIVERY_ERRORS.noReceipt,
      });
      expect(await messageExpireDue(tx, at(700), 100, DELIVERY_ERRORS)).toEqual([]);
    });

    own(
      'sets a delivered read-tracked message unread at the end of its lifetime, its status staying delivered',
      async (tx) => {
        const accountId = (await insertAccount(tx)).id;
        const callbackTargetId = await insertCallbackTarget(tx, accountId, 'http://127.0.0.1:9/unread', T0);
        const id = await insertMessage(tx, {
          accountId,
          channel: 'WHATSAPP',
          status: 'delivered',
          dueAt: at(600),
          callbackTargetId,
          callbackEvents: ['read'],
        });
        expect(await messageExpireDue(tx, at(599), 100, DELIVERY_ERRORS)).toEqual([]);
        expect(await messageExpireDue(tx, at(600), 100, DELIVERY_ERRORS)).toEqual([
          { account_id: accountId, id, outcome: 'unread' },
        ]);
        expect(await row(tx, id)).toMatchObject({
          status: 'delivered',
          read_status: 'unread',
          error_code: null,
          due_at: null,
          status_at: T0,
        });
        const events = await tx.query<{ event: string; status: string; error_code: number }>(
          'SELECT event, status, error_code FROM callback_events WHERE message_id = $1',
          [id],
        );
        // The event carries the message's error code (docs/callbacks.md): a delivered message has none.
        expect(events).toEqual([{ event: 'read', status: 'unread', error_code: null }]);
        expect(entries(await row(tx, id)).at(-1)).toEqual({ status: 'unread', at: at(600).toISOString() });
      },
    );

    own(
      'leaves messages waiting to be sent, and final ones, alone; ends at most `limit`, earliest due first',
      async (tx) => {
        const sending = await newMessage(tx, { dueAt: at(-10) });
        await newMessage(tx, { status: 'undelivered', dueAt: null });
        const later = await newMessage(tx, { status: 'sent', dueAt: at(-1) });
        const earlier = await newMessage(tx, { status: 'sent', dueAt: at(-2) });
        expect((await messageExpireDue(tx, at(0), 1, DELIVERY_ERRORS)).map((m) => m.id)).toEqual([earlier]);
        expect((await messageExpireDue(tx, at(0), 10, DELIVERY_ERRORS)).map((m) => m.id)).toEqual([later]);
        expect((await row(tx, sending)).status).toBe('sending');
      },
    );

    own('ends those due at the same instant by id, at most `limit`', async (tx) => {
      const accountId = (await insertAccount(tx)).id;
      // Written in the reverse of id order, as in the claim's test above.
      for (const id of [...IDS].reverse())
        await insertMessage(tx, { accountId, id, createdAt: T0, status: 'sent', dueAt: at(-5) });
      const ended = async (limit: number): Promise<string[]> =>
        (await messageExpireDue(tx, at(0), limit, DELIVERY_ERRORS)).map((m) => m.id).sort();
      expect(await ended(2)).toEqual(IDS.slice(0, 2));
      expect(await ended(2)).toEqual(IDS.slice(2));
    });

    own(
      'is an index scan of messages_waiting_due that stops at the limit, with no sort of the due messages',
      async (tx) => {
        await manyDueMessages(tx, 'sent');
        const plan = await planOf(tx, (explaining) => messageExpireDue(explaining, at(0), 1000, DELIVERY_ERRORS));
        const nodes = subplanNodes(plan, 'CTE due');
        expect(nodes.map((n) => n.type)).toEqual(['Limit', 'LockRows', 'Index Scan']);
        expect(nodes.at(-1)!.index).toBe('messages_waiting_due');
      },
    );
  });
});

describeClaimSkipsLocked('delivery SQL: a claim skips messages another transaction holds (PostgreSQL)', {
  table: 'messages',
  insertDue: async (db) => insertMessage(db, { accountId: (await insertAccount(db)).id, createdAt: T0 }),
  claim: (db) => claimedIds(db, at(0)),
});

/**
 * Enough messages due, with statistics, that the planner weighs an index scan against a sort as in production. Their
 * ids are random, or, with `near`, version 7 ids of the 20 seconds before it: in the week partition of a batch made
 * then, which its statements read alone (their span of ids). Not `analysed`: the statistics stay as they were.
 */
async function manyDueMessages(tx: Queryable, status = 'sending', near?: Date, analysed = true): Promise<void> {
  const accountId = (await insertAccount(tx)).id;
  const ids = near ? Array.from({ length: 20000 }, (_, i) => uuid7(near.getTime() - 20000 + i)) : null;
  await tx.query(
    `INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, content, total_parts,
       status, status_at, due_at)
     SELECT $1, coalesce(($4::uuid[])[i], gen_random_uuid()), $2, 'SMS', 'Herald', '79161234560', '"bulk"', 1, $3, $2,
       $2::timestamptz - (i % 300) * interval '1 second'
     FROM generate_series(1, 20000) i`,
    [accountId, T0, status, ids],
  );
  if (analysed) await tx.query('ANALYZE messages');
}
