import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fraudJobs } from '../../src/fraud/index.js';
import { pumpingCountBatch, pumpingHolds } from '../../src/fraud/fraudSql.js';
import { planOf } from '../helpers/plans.js';
import { normaliseDestination } from '../../src/numbering/index.js';
import { BUNDLED_NUMBERING_PLAN } from '../../src/numbering/numberingPlan.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

/** `count` numbers of one range (`range` + 4 digits), from `first`. */
const rangeNumbers = (range: string, count: number, first = 0): string[] =>
  Array.from({ length: count }, (_, i) => `${range}${String(first + i).padStart(4, '0')}`);

/**
 * `count` numbers spread over the bundled numbering plan's ranges (a mailing to a customer base): the i-th from the
 * plan's (i * 7919)-th row, at an offset within it.
 */
function planNumbers(count: number): string[] {
  const rows = readFileSync(BUNDLED_NUMBERING_PLAN, 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split(';'))
    .filter((cells) => cells.length > 3 && /^9\d\d$/.test(cells[0]!))
    .map(([def, from, to]) => ({ def: def!, from: Number(from), size: Number(to) - Number(from) + 1 }));
  const numbers: string[] = [];
  for (let i = 0; numbers.length < count; i++) {
    const row = rows[(i * 7919) % rows.length]!;
    const number = `7${row.def}${String(row.from + ((i * 104_729) % row.size)).padStart(7, '0')}`;
    // Some allocated ranges are not in libphonenumber's RU mobile pattern yet: a send would refuse them.
    if (normaliseDestination(number)) numbers.push(number);
  }
  return numbers;
}

const BATCH = 1000;

describe.each(ENGINES)('pumping detection and fraud holds (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_PUMPING_MODE: 'hold' } });
  });
  afterAll(async () => t?.close());

  const sms = (destinations: readonly string[], extra: Record<string, unknown> = {}) =>
    destinations.map((destination) => message('SMS', { destination, ...extra }));

  /** Sends in batches of 1000; returns the ids in order. */
  async function sendAll(account: TestAccount, messages: readonly Record<string, unknown>[]): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < messages.length; i += BATCH)
      ids.push(...(await t.send(account.traffic, messages.slice(i, i + BATCH))));
    return ids;
  }

  /** How many of the messages wait in a fraud hold. */
  async function heldOf(ids: readonly string[]): Promise<number> {
    const [row] = await t.testDb.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${messageRows()} WHERE id = ANY($1::uuid[]) AND fraud_hold_id IS NOT NULL
         AND status = 'sending' AND due_at = 'infinity'`,
      [ids],
    );
    return row!.n;
  }

  const openHolds = async (account: TestAccount) =>
    (await t.admin('GET', `/admin/v1/holds?accountId=${account.id}`)).body.items as {
      id: number;
      kind: string;
      key: string;
      status: string;
      messages: number;
      allowance: number;
    }[];

  it('holds 10,000 sends to one premium range after 100, while another account sends its codes', async () => {
    const pumper = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const shop = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    let done = false;
    const latencies: number[] = [];
    const subscribers = planNumbers(2_000);
    const codes = (async () => {
      // Back to back, as many as the run lasts (at most 300: on PGlite, one connection, each takes its turn).
      for (let i = 0; !done && i < 300; i++) {
        const started = performance.now();
        await t.send(shop.traffic, [
          message('SMS', { destination: subscribers[i % subscribers.length], trafficType: 'AUTHORIZE' }),
        ]);
        latencies.push(performance.now() - started);
      }
    })();
    const ids = await sendAll(pumper, sms(rangeNumbers('7900123', 10_000)));
    done = true;
    await codes;

    const held = await heldOf(ids);
    expect(10_000 - held).toBeLessThanOrEqual(200);
    expect(10_000 - held).toBe(100);
    expect(await openHolds(pumper)).toMatchObject([
      { kind: 'range', key: '7900123', status: 'open', messages: 9_900, allowance: 100 },
    ]);
    const last = (await t.call('GET', `/api/v1/message/${ids.at(-1)}`, { token: pumper.traffic })).body;
    expect(last).toMatchObject({ status: 'sending', hold: 'fraud' });
    const first = (await t.call('GET', `/api/v1/message/${ids[0]}`, { token: pumper.traffic })).body;
    expect(first).toMatchObject({ status: 'sending', hold: null });

    // The other account's codes were never held, and their sends kept their pace (reported; bounded generously).
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
    console.log(`[${engine}] OTP sends during the pumping run: ${sorted.length}, p99 ${p99.toFixed(1)} ms`);
    expect(sorted.length).toBeGreaterThan(0);
    expect(p99).toBeLessThan(5_000);
    expect(await openHolds(shop)).toEqual([]);
  }, 120_000);

  it('does not hold a mailing of 10,000 spread over the numbering plan', async () => {
    const shop = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const ids = await sendAll(shop, sms(planNumbers(10_000), { trafficType: 'PROMO' }));
    expect(await heldOf(ids)).toBe(0);
    expect(await openHolds(shop)).toEqual([]);
  });

  it('holds a burst to a foreign country over its floor, range by range under theirs', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    // 400 UK mobiles over 4 ranges of 100: each range within its floor, the country over its 300.
    const uk = ['44791100', '44791101', '44791102', '44791103'].flatMap((r) => rangeNumbers(r, 100));
    const ids = await t.send(account.traffic, sms(uk));
    expect(await heldOf(ids)).toBe(100);
    expect(await openHolds(account)).toMatchObject([{ kind: 'country', key: 'GB', messages: 100, allowance: 300 }]);
  });

  it('allows a range its own baseline times the factor', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    // 80 in an hour a few hours ago: a baseline of 80, so 800 an hour now.
    await t.send(account.traffic, sms(rangeNumbers('7900234', 80)));
    t.clock.advance(3 * 3_600_000);
    const ids = await t.send(account.traffic, sms(rangeNumbers('7900234', 801, 100)));
    expect(await heldOf(ids)).toBe(1);
    expect(await openHolds(account)).toMatchObject([{ key: '7900234', messages: 1, allowance: 800 }]);
  });

  it('counts FLASHCALL conversions as proof of real traffic on their range', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const calls = await t.send(
      account.traffic,
      rangeNumbers('7900345', 20).map((destination) => message('FLASHCALL', { destination })),
    );
    const reply = await t.call('POST', '/api/v1/flashcall-conversion', {
      auth: `Bearer ${account.traffic}`,
      body: calls.map((messageUuid) => ({ messageUuid, result: 'NUMBER_VERIFIED' })),
    });
    expect(reply.body.errors).toBe(false);
    // 20 proofs: 100 + 10 x 20 = 300 an hour to the range, of which the calls took 20.
    const proven = await t.send(account.traffic, sms(rangeNumbers('7900345', 281, 100)));
    expect(await heldOf(proven)).toBe(1);
    // Control: a range without proofs holds past its floor.
    const unproven = await t.send(account.traffic, sms(rangeNumbers('7900346', 281)));
    expect(await heldOf(unproven)).toBe(181);
  });

  it('holds racing batches of one account to one range past its floor together, in one hold', async () => {
    // Four batches of 30 at once to a range whose floor is 40: no lock of the account orders them, the range's count
    // row does (pumpingCount), so 40 go in all and the other 80 wait in one hold.
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const pumping = { mode: 'hold', rangeFloor: 40, countryFloor: 300, factor: 10 };
    expect((await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { pumping })).status).toBe(200);
    const numbers = rangeNumbers('7900911', 120);
    const batches = [0, 1, 2, 3].map((k) => t.send(account.traffic, sms(numbers.slice(k * 30, k * 30 + 30))));
    const ids = (await Promise.all(batches)).flat();
    expect(await heldOf(ids)).toBe(80);
    expect(await openHolds(account)).toMatchObject([{ kind: 'range', key: '7900911', messages: 80, allowance: 40 }]);
  });

  it("follows the account's settings: the operator's floor, the client's narrowing, mode off", async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const pumping = { mode: 'hold', rangeFloor: 40, countryFloor: 300, factor: 10 };
    expect((await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { pumping })).status).toBe(200);
    expect(await heldOf(await t.send(account.traffic, sms(rangeNumbers('7900901', 50))))).toBe(10);
    // The client narrows the floor further.
    const narrowed = await t.call('PATCH', '/api/v1/settings', {
      token: account.system,
      body: { pumping: { ...pumping, rangeFloor: 20 } },
    });
    expect(narrowed.status).toBe(200);
    expect(await heldOf(await t.send(account.traffic, sms(rangeNumbers('7900902', 50))))).toBe(30);
    // The client's hold outranks an operator's off (the narrower of both); an account the operator switched off
    // and the client did not narrow holds nothing.
    const off = { ...pumping, mode: 'off' };
    expect((await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { pumping: off })).status).toBe(200);
    expect(await heldOf(await t.send(account.traffic, sms(rangeNumbers('7900903', 50))))).toBe(30);
    const trusted = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    expect((await t.admin('PATCH', `/admin/v1/accounts/${trusted.id}`, { pumping: off })).status).toBe(200);
    expect(await heldOf(await t.send(trusted.traffic, sms(rangeNumbers('7900904', 150))))).toBe(0);
  });

  it('releases a hold: its messages become due and the range is not held again that day', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const ids = await t.send(account.traffic, sms(rangeNumbers('7900456', 150)));
    expect(await heldOf(ids)).toBe(50);
    const [hold] = await openHolds(account);

    const released = await t.admin('POST', `/admin/v1/holds/${hold!.id}/release`);
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ id: hold!.id, status: 'released', messages: 50 });
    expect(Date.parse(released.body.trustedUntil)).toBeGreaterThan(t.clock.now().getTime());
    expect(await heldOf(ids)).toBe(0);
    const [due] = await t.testDb.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${messageRows()}
         WHERE id = ANY($1::uuid[]) AND status = 'sending' AND due_at <= $2`,
      [ids, t.clock.now()],
    );
    expect(due!.n).toBe(150);
    const message150 = (await t.call('GET', `/api/v1/message/${ids.at(-1)}`, { token: account.traffic })).body;
    expect(message150).toMatchObject({ status: 'sending', hold: null });
    expect(await openHolds(account)).toEqual([]);

    // Trusted for the rest of the day: more to the range goes.
    const more = await t.send(account.traffic, sms(rangeNumbers('7900456', 300, 1000)));
    expect(await heldOf(more)).toBe(0);

    // A hold decided already, and no such hold.
    const again = await t.admin('POST', `/admin/v1/holds/${hold!.id}/reject`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe(4091);
    const none = await t.admin('POST', '/admin/v1/holds/999999999/release');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe(4040);
  });

  it('rejects a hold: its messages end unsent 7701, refunded', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 1000 });
    expect(
      (
        await t.admin('POST', '/admin/v1/tariffs', {
          accountId: account.id,
          channelType: 'SMS',
          price: 1,
          currency: 'RUB',
        })
      ).status,
    ).toBe(201);
    const ids = await t.send(account.traffic, sms(rangeNumbers('7900567', 130)));
    expect(await heldOf(ids)).toBe(30);
    expect((await t.call('GET', '/api/v1/balance', { token: account.traffic })).body).toEqual({ RUB: 870 });
    const [hold] = await openHolds(account);

    const rejected = await t.admin('POST', `/admin/v1/holds/${hold!.id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', trustedUntil: null });
    expect((await t.call('GET', '/api/v1/balance', { token: account.traffic })).body).toEqual({ RUB: 900 });
    const last = (await t.call('GET', `/api/v1/message/${ids.at(-1)}`, { token: account.traffic })).body;
    expect(last).toMatchObject({ status: 'unsent', errorCode: 7701, hold: null });
    // The messages that went before the burst are untouched.
    const first = (await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.traffic })).body;
    expect(first).toMatchObject({ status: 'sending', errorCode: null });

    // Not trusted: the next message to the range, still over the allowance, opens a new hold.
    const next = await t.send(account.traffic, sms(rangeNumbers('7900567', 1, 500)));
    expect(await heldOf(next)).toBe(1);
    expect((await openHolds(account)).map((h) => h.id)).not.toContain(hold!.id);
  });

  it('lists holds for the operator only, filtered by status', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    await t.send(account.traffic, sms(rangeNumbers('7900678', 101)));
    expect(await openHolds(account)).toHaveLength(1);
    const rejected = await t.admin('GET', `/admin/v1/holds?accountId=${account.id}&status=rejected`);
    expect(rejected.body).toMatchObject({ items: [], total: 0 });
    expect((await t.call('GET', '/admin/v1/holds', { token: account.system })).status).toBe(401);
    expect((await t.admin('GET', '/admin/v1/holds?status=closed')).status).toBe(422);
  });

  it('deletes counts older than the 7 days the baseline reads, keeping newer ones', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const counts = async () =>
      (
        await t.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM fraud_counts WHERE account_id = $1', [
          account.id,
        ])
      )[0]!.n;
    await t.send(account.traffic, sms(rangeNumbers('7900789', 10)));
    t.clock.advance(7 * 24 * 3_600_000);
    await t.send(account.traffic, sms(rangeNumbers('7900789', 10, 100)));
    expect(await counts()).toBe(2);
    const [expiry] = fraudJobs({ db: t.testDb.db, clock: t.clock });
    await expiry!.run();
    expect(await counts()).toBe(2);
    t.clock.advance(2 * 24 * 3_600_000);
    await expiry!.run();
    expect(await counts()).toBe(1);
  });

  it("caps every account's mode by the operator's switch: monitor counts bursts and holds nothing", async () => {
    const watched = await startTestHerald(engine, { env: { HERALD_PUMPING_MODE: 'monitor' } });
    try {
      const account = await watched.createAccount({ senderNames: [['SMS', SENDER]] });
      const ids = await watched.send(account.traffic, sms(rangeNumbers('7900890', 150)));
      const [row] = await watched.testDb.db.query<{ held: number }>(
        `SELECT count(*) FILTER (WHERE fraud_hold_id IS NOT NULL)::int AS held
         FROM ${messageRows()} WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      expect(row!.held).toBe(0);
      expect((await watched.admin('GET', '/admin/v1/holds')).body.total).toBe(0);
      const metrics = await fetch(`${watched.url}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/herald_pumping_burst_messages_total\{mode="monitor"\} 50\b/);
    } finally {
      await watched.close();
    }
  });

  it.runIf(engine === 'postgres')("reads a batch's keys by index: the counts' key and the open holds'", async () => {
    await t.testDb.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const counts = new Map([
        ['range:7900123', 1],
        ['country:GB', 1],
      ] as const);
      const floors = { range: 100, country: 300 };
      const plan = await planOf(tx, (explaining) =>
        pumpingCountBatch(explaining, 1, counts, floors, [], t.clock.now()),
      );
      const text = JSON.stringify(plan);
      expect(text).toContain('"Index Name":"fraud_counts_pkey"');
      expect(text).not.toContain('"Node Type":"Seq Scan"');
      const holds = JSON.stringify(await planOf(tx, (explaining) => pumpingHolds(explaining, 1, t.clock.now())));
      expect(holds).toContain('"Index Name":"fraud_holds_open"');
      expect(holds).not.toContain('"Node Type":"Seq Scan"');
    });
  });

  it('reads the history only of keys that may be over their floor', async () => {
    // A key whose hour, with the batch, and the hour before stay within its floor cannot be over its allowance: its
    // row is counted and not read back.
    const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    const floors = { range: 3, country: 300 };
    await t.testDb.db.transaction(async (tx) => {
      const now = t.clock.now();
      const counts = new Map([['range:7900555', 2]] as const);
      expect(await pumpingCountBatch(tx, account.id, counts, floors, [], now)).toEqual(new Map());
      expect(await pumpingCountBatch(tx, account.id, counts, floors, [], now)).toEqual(
        new Map([['range:7900555', { sent: 4, previous: 0, baseline: 0, proofs: 0 }]]),
      );
      const other = new Map([['range:7900556', 1]] as const);
      expect(await pumpingCountBatch(tx, account.id, other, floors, ['range:7900556'], now)).toEqual(
        new Map([['range:7900556', { sent: 1, previous: 0, baseline: 0, proofs: 0 }]]),
      );
    });
  });
});
