import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageCount } from '../../src/messages/messageSql.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { messagesTrigger, triggerFunctionSql } from '../helpers/triggers.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/** A long SMS (13 parts): 600 of them are about 1.3 MB of rows, stored in about ten short transactions. */
const LONG = 'x'.repeat(1900);
const COUNT = 600;
const destinationOf = (i: number): string => `7903${String(i).padStart(7, '0')}`;
const longSms = (i: number, changes: Record<string, unknown> = {}) =>
  message('SMS', { destination: destinationOf(i), content: `${i} ${LONG}`, ...changes });

describe.each(ENGINES)('batches of large rows, stored in slices (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const call = (path: string, body: unknown, key?: string, token = account.traffic) =>
    t.call('POST', path, { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

  // A message to this destination fails its statement while the cut is on: the batch is cut where it is stored.
  const cutFunction = (on: boolean): string =>
    triggerFunctionSql(
      'refuse_cut_destination',
      on ? "IF NEW.destination = '79039999999' THEN RAISE EXCEPTION 'the batch is cut here'; END IF;" : '',
    );
  const cutAt = async (on: boolean): Promise<void> => {
    await t.testDb.db.query(cutFunction(on));
  };

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      prepare: messagesTrigger('refuse_cut_destination', 'BEFORE INSERT'),
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const idsOf = async (accountId: number): Promise<string[]> =>
    (
      await t.testDb.db.query<{ id: string }>('SELECT id FROM messages WHERE account_id = $1 ORDER BY id', [accountId])
    ).map((r) => r.id);

  for (const route of ['/api/v1/message', '/api/v1/message/cascade'] as const) {
    const item = (i: number, changes: Record<string, unknown> = {}) =>
      route === '/api/v1/message'
        ? longSms(i, changes)
        : {
            destination: (changes.destination as string | undefined) ?? destinationOf(i),
            cascade: [
              { ...longSms(i), destination: undefined, condition: 'not_delivered' },
              { ...longSms(i), destination: undefined },
            ],
          };

    it(`${route}: a batch cut after its first slice and retried with its key creates each item once`, async () => {
      const a = await t.createAccount({ senderNames: [['SMS', SENDER]] });
      const body = Array.from({ length: COUNT }, (_, i) => item(i, i === 80 ? { destination: '79039999999' } : {}));
      await cutAt(true);
      let cut;
      try {
        cut = await call(route, body, 'cut-batch', a.traffic);
      } finally {
        await cutAt(false);
      }
      expect(cut.status).toBe(500);
      const committed = await messageCount(t.testDb.db, a.id);
      // The first slices stayed, the one with the failing row did not.
      expect(committed).toBeGreaterThan(0);
      expect(committed).toBeLessThan(80);

      const retried = await call(route, body, 'cut-batch', a.traffic);
      expect(retried.status).toBe(200);
      expect(retried.body.errors).toBe(false);
      expect(retried.body.items).toHaveLength(COUNT);
      const roots = retried.body.items.map((i: { messageUuid: string }) => i.messageUuid);
      expect(new Set(roots).size).toBe(COUNT);
      // Every item exactly once: one message per item (its first step for a cascade), the committed ones kept.
      const ids = await idsOf(a.id);
      expect(ids).toHaveLength(COUNT);
      expect([...roots].sort()).toEqual(ids);

      const again = await call(route, body, 'cut-batch', a.traffic);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(retried.body);
      expect(await messageCount(t.testDb.db, a.id)).toBe(COUNT);
    }, 120_000);
  }

  it('answers 409 4090 while an attempt holds the key, and resumes once its hold is over', async () => {
    const a = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const body = Array.from({ length: COUNT }, (_, i) => longSms(i, i === 80 ? { destination: '79039999999' } : {}));
    await cutAt(true);
    try {
      expect((await call('/api/v1/message', body, 'held', a.traffic)).status).toBe(500);
    } finally {
      await cutAt(false);
    }
    // As if the first attempt were still running (or its process died a moment ago): its lease is not over.
    await t.testDb.db.query("UPDATE idempotency_keys SET pending_until = $2 WHERE account_id = $1 AND key = 'held'", [
      a.id,
      new Date(t.clock.now().getTime() + 60_000),
    ]);
    const busy = await call('/api/v1/message', body, 'held', a.traffic);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({
      error: { code: 4090, msg: 'A request with Idempotency-Key held is still in progress: retry later' },
    });
    t.clock.advance(61_000);
    const resumed = await call('/api/v1/message', body, 'held', a.traffic);
    expect(resumed.status).toBe(200);
    expect(resumed.body.items).toHaveLength(COUNT);
    expect(await messageCount(t.testDb.db, a.id)).toBe(COUNT);
  }, 120_000);

  it('takes funds in order across slices: 4020 from the first that does not fit, for every later item', async () => {
    // 13 parts at 1 a part: 300 long SMS fit, the 301st (in the middle slice) does not; the later ones, to numbers
    // of another prefix at 0.001 a part, would fit in what is left (5), and are refused as the rest of the batch.
    const a = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 300 * 13 + 5 });
    const tariff = (price: number, prefix?: string) =>
      t.admin('POST', '/admin/v1/tariffs', { accountId: a.id, channelType: 'SMS', price, currency: 'RUB', prefix });
    expect((await tariff(1)).status).toBe(201);
    expect((await tariff(0.001, '7904')).status).toBe(201);
    const body = Array.from({ length: COUNT }, (_, i) =>
      longSms(i, i > 300 ? { destination: `7904${String(i).padStart(7, '0')}` } : {}),
    );
    const reply = await call('/api/v1/message', body, undefined, a.traffic);
    expect(reply.status).toBe(200);
    const codes = reply.body.items.map((i: { code: number }) => i.code);
    expect(codes).toEqual([...Array<number>(300).fill(201), ...Array<number>(COUNT - 300).fill(4020)]);
    expect(await messageCount(t.testDb.db, a.id)).toBe(300);
    expect((await t.call('GET', '/api/v1/balance', { token: a.traffic })).body).toEqual({ RUB: 5 });
  }, 120_000);
});
