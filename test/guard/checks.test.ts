import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floodTakeBack } from '../../src/guard/floodSql.js';
import { guardJobs } from '../../src/guard/jobs.js';
import { planOf } from '../helpers/plans.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

const RU = '79161234567';
const RU_OTHER = '79031234560';
const DE = '4915112345670';

describe.each(ENGINES)('guard checks at generation (DESIGN 20) (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => t?.close());

  /** A fresh account with an SMS sender name, a balance and its own SMS tariff of 10 RUB a part. */
  async function account(): Promise<TestAccount> {
    const a = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 1000, guardDefaults: true });
    const tariff = { accountId: a.id, channelType: 'SMS', price: 10, currency: 'RUB' };
    expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    return a;
  }
  const send = async (a: TestAccount, messages: Record<string, unknown>[]) => {
    const reply = await t.call('POST', '/api/v1/message', { token: a.traffic, body: messages });
    expect(reply.status).toBe(200);
    return reply.body.items.map((i: { code: number; msg?: string }) => (i.code === 201 ? 201 : [i.code, i.msg]));
  };
  const balance = async (a: TestAccount): Promise<number> =>
    (await t.call('GET', '/api/v1/balance', { token: a.traffic })).body.RUB;
  const setting = (a: TestAccount, body: unknown) => t.admin('PATCH', `/admin/v1/accounts/${a.id}`, body);
  const refusals = async (a: TestAccount) =>
    (await t.call('GET', '/api/v1/statistics/refusals', { token: a.system })).body;

  it('refuses a country not allowed (4035) and sends it, counted, in monitor mode', async () => {
    const a = await account();
    await setting(a, { geoPermissions: { allow: ['RU'], mode: 'enforce' } });
    expect(await send(a, [message('SMS', { destination: RU }), message('SMS', { destination: DE })])).toEqual([
      201,
      [4035, 'Destination country not allowed: DE'],
    ]);
    await setting(a, { geoPermissions: { deny: ['DE'], mode: 'monitor' } });
    expect(await send(a, [message('SMS', { destination: DE })])).toEqual([201]);
    const stats = await refusals(a);
    expect(stats.items).toEqual([
      { day: '2026-03-10', channelType: 'SMS', code: 4035, monitored: false, count: 1 },
      { day: '2026-03-10', channelType: 'SMS', code: 4035, monitored: true, count: 1 },
    ]);
    expect(stats.byCode).toEqual({ 4035: 1 });
    const metrics = (await t.call('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/herald_refusals_total\{code="4035",outcome="monitored"\} [1-9]/);
  });

  it('counts a monitored message when it is stored, not one refused later (funds)', async () => {
    const a = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 10, guardDefaults: true });
    const tariff = { accountId: a.id, channelType: 'SMS', price: 10, currency: 'RUB' };
    expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    await setting(a, { geoPermissions: { deny: ['DE'], mode: 'monitor' } });
    // Funds for one: the second passes the geo rule (monitored), then is refused for funds and never stored.
    const [first, second] = await send(a, [message('SMS', { destination: DE }), message('SMS', { destination: DE })]);
    expect(first).toBe(201);
    expect((second as [number, string])[0]).toBe(4020);
    const stats = await refusals(a);
    expect(stats.items).toEqual([
      { day: '2026-03-10', channelType: 'SMS', code: 4020, monitored: false, count: 1 },
      { day: '2026-03-10', channelType: 'SMS', code: 4035, monitored: true, count: 1 },
    ]);
  });

  it('refuses a PROMO message without consent (4034) and sends it once a matching consent is recorded', async () => {
    const a = await account();
    const set = await t.call('PATCH', '/api/v1/settings', { token: a.system, body: { consentRequired: ['PROMO'] } });
    expect(set.status).toBe(200);
    const promo = message('SMS', { destination: RU, trafficType: 'PROMO' });
    expect(await send(a, [promo, message('SMS', { destination: RU, trafficType: 'SERVICE' })])).toEqual([
      [4034, `No consent: ${RU}`],
      201,
    ]);
    // A consent for another sender name does not match; one for every sender name does.
    const consent = (body: unknown) => t.call('POST', '/api/v1/consents', { token: a.system, body });
    expect((await consent({ number: `+${RU}`, senderName: 'Other', source: 'web-form' })).status).toBe(201);
    expect(await send(a, [promo])).toEqual([[4034, `No consent: ${RU}`]]);
    const given = await consent({ number: '+7 916 123-45-67', trafficType: 'PROMO', source: 'web-form', proof: 'x' });
    expect(given.body).toMatchObject({ number: RU, senderName: null, trafficType: 'PROMO', source: 'web-form' });
    expect(await send(a, [promo, message('SMS', { destination: RU_OTHER, trafficType: 'PROMO' })])).toEqual([
      201,
      [4034, `No consent: ${RU_OTHER}`],
    ]);
    // Another account's consents are its own.
    const b = await account();
    await t.call('PATCH', '/api/v1/settings', { token: b.system, body: { consentRequired: ['PROMO'] } });
    expect(await send(b, [promo])).toEqual([[4034, `No consent: ${RU}`]]);
  });

  it('lists and exports consents with filters, and refuses bad ones with 4220', async () => {
    const a = await account();
    const post = (body: unknown) => t.call('POST', '/api/v1/consents', { token: a.system, body });
    await post({ number: RU, source: 'web-form', proof: 'form "signup", page 1', time: '2026-03-01T10:00:00Z' });
    await post({ number: RU_OTHER, source: 'shop' });
    const list = await t.call('GET', '/api/v1/consents?source=shop', { token: a.system });
    expect(list.body.total).toBe(1);
    expect(list.body.items[0]).toMatchObject({ number: RU_OTHER, source: 'shop' });
    const byNumber = await t.call('GET', '/api/v1/consents?number=%2B79161234567', { token: a.system });
    expect(byNumber.body.items.map((c: { number: string }) => c.number)).toEqual([RU]);
    const csv = await t.call('GET', '/api/v1/consents/export', { token: a.system });
    expect(csv.status).toBe(200);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe('id,number,senderName,trafficType,source,proof,time,createdTime');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(`${RU},,,web-form,"form ""signup"", page 1",2026-03-01T10:00:00Z`);
    for (const body of [
      { number: 'not a number', source: 'x' },
      { number: RU },
      { number: RU, source: 'x', time: '2027-01-01T00:00:00Z' },
      { number: RU, source: 'x', trafficType: 'SPAM' },
    ]) {
      const bad = await post(body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(bad.body.error.code).toBe(4220);
    }
    expect((await t.call('GET', '/api/v1/consents?number=abc', { token: a.system })).body.error.code).toBe(4220);
    expect((await t.call('GET', '/api/v1/consents', { token: a.traffic })).status).toBe(403);
  });

  it('holds a destination to its identical and total messages per sliding hour (4291, free)', async () => {
    const a = await account();
    await t.call('PATCH', '/api/v1/settings', { token: a.system, body: { flood: { identical: 2, any: 3 } } });
    const to = (destination: string, content: string) => message('SMS', { destination, content });
    const before = await balance(a);
    expect(await send(a, [to(RU, 'A'), to(RU, 'A'), to(RU, 'A'), to(RU, 'B'), to(RU, 'C'), to(RU_OTHER, 'A')])).toEqual(
      [
        201,
        201,
        [4291, 'Too many messages to this destination'],
        201,
        [4291, 'Too many messages to this destination'],
        201,
      ],
    );
    // Refused items are free and do not count.
    expect(before - (await balance(a))).toBe(40);
    t.clock.advance(59 * 60_000);
    expect(await send(a, [to(RU, 'D')])).toEqual([[4291, 'Too many messages to this destination']]);
    t.clock.advance(60_001);
    expect(await send(a, [to(RU, 'A'), to(RU, 'A'), to(RU, 'A')])).toEqual([
      201,
      201,
      [4291, 'Too many messages to this destination'],
    ]);
    expect((await refusals(a)).byCode).toEqual({ 4291: 4 });
    // The defaults hold too: the seventh identical text within the hour is refused.
    const b = await account();
    const seven = Array.from({ length: 7 }, () => to(RU, 'same'));
    expect((await send(b, seven)).slice(5)).toEqual([201, [4291, 'Too many messages to this destination']]);
  });

  it('is exact when batches of one account race', async () => {
    const a = await account();
    await t.call('PATCH', '/api/v1/settings', { token: a.system, body: { flood: { identical: 3, any: 3 } } });
    const batch = [message('SMS', { destination: RU }), message('SMS', { destination: RU })];
    const replies = await Promise.all(Array.from({ length: 4 }, () => send(a, batch)));
    expect(replies.flat().filter((c) => c === 201)).toHaveLength(3);
  });

  it('lets racing batches of one account pass 20 messages per destination and hour together, not each', async () => {
    // The default limits, distinct texts (the 20 in all binds, not the 6 identical): four batches of 10 at once. No
    // lock of the account orders them; the flood row of the destination does (floodAppend).
    const a = await account();
    const batch = (n: number) =>
      Array.from({ length: 10 }, (_, i) => message('SMS', { destination: RU, content: `text ${n}.${i}` }));
    const replies = await Promise.all([0, 1, 2, 3].map((n) => send(a, batch(n))));
    expect(replies.flat().filter((c) => c === 201)).toHaveLength(20);
    expect(replies.flat().filter((c) => c !== 201)).toEqual(
      Array.from({ length: 20 }, () => [4291, 'Too many messages to this destination']),
    );
  });

  it('lets racing batches of one account spend the daily limit together, not each', async () => {
    const a = await account();
    await setting(a, { dailySpendLimit: { RUB: 50 }, flood: null });
    const batch = (n: number) => [0, 1, 2].map((i) => message('SMS', { destination: `7916${n}${i}00000` }));
    const before = await balance(a);
    const replies = await Promise.all([0, 1, 2, 3].map((n) => send(a, batch(n))));
    expect(replies.flat().filter((c) => c === 201)).toHaveLength(5);
    expect(before - (await balance(a))).toBe(50);
  });

  it('lets only the operator turn the flood filter off', async () => {
    const a = await account();
    await setting(a, { flood: null });
    const many = Array.from({ length: 30 }, () => message('SMS', { destination: RU }));
    expect((await send(a, many)).every((c: unknown) => c === 201)).toBe(true);
  });

  it('refuses what passes the daily spend limit (4022) until the next day in the zone', async () => {
    const a = await account();
    await setting(a, { dailySpendLimit: { RUB: 25 } });
    const before = await balance(a);
    const three = [RU, RU_OTHER, '79161234568'].map((d) => message('SMS', { destination: d }));
    expect(await send(a, three)).toEqual([201, 201, [4022, 'Daily spend limit reached']]);
    expect(before - (await balance(a))).toBe(20);
    // 2026-03-10 23:59 in Moscow is still the same day; 00:00 is the next.
    t.clock.set('2026-03-10T20:59:00Z');
    expect(await send(a, [message('SMS', { destination: RU })])).toEqual([[4022, 'Daily spend limit reached']]);
    t.clock.set('2026-03-10T21:00:00Z');
    expect(await send(a, three)).toEqual([201, 201, [4022, 'Daily spend limit reached']]);
    // A limit in another currency does not bind RUB messages.
    const b = await account();
    await setting(b, { dailySpendLimit: { USD: 1 } });
    expect(await send(b, three)).toEqual([201, 201, 201]);
  });

  it('counts in the flood filter only what was stored: one refused by a later check gives its place back', async () => {
    const a = await account();
    await setting(a, { flood: { identical: 0, any: 3 }, dailySpendLimit: { RUB: 20 } });
    const to = (destination: string) => message('SMS', { destination });
    // The third message to RU passes the filter, then the spend limit refuses it: it is not counted.
    expect(await send(a, [to(RU), to(RU), to(RU), to(RU_OTHER)])).toEqual([
      201,
      201,
      [4022, 'Daily spend limit reached'],
      [4022, 'Daily spend limit reached'],
    ]);
    await setting(a, { dailySpendLimit: null });
    expect(await send(a, [to(RU), to(RU), to(RU_OTHER)])).toEqual([
      201,
      [4291, 'Too many messages to this destination'],
      201,
    ]);
  });

  it('shows refusal statistics to the operator and refuses a bad range with 4220', async () => {
    const a = await account();
    await setting(a, { geoPermissions: { deny: ['DE'], mode: 'enforce' } });
    await send(a, [message('SMS', { destination: DE }), message('SMS', { destination: DE })]);
    const operator = await t.admin('GET', `/admin/v1/accounts/${a.id}/refusals?from=2026-03-01&to=2026-03-31`);
    expect(operator.status).toBe(200);
    expect(operator.body).toMatchObject({ from: '2026-03-01', to: '2026-03-31', byCode: { 4035: 2 } });
    const earlier = await t.call('GET', '/api/v1/statistics/refusals?from=2026-02-01&to=2026-02-28', {
      token: a.system,
    });
    expect(earlier.body.items).toEqual([]);
    for (const query of [
      'from=2026-03-10&to=2026-03-01',
      'from=2024-01-01&to=2026-03-10',
      'from=2026-13-01',
      'x=1',
      // Days the pattern lets through that do not exist, alone (the default `from` is counted from `to`).
      'to=0000-00-00',
      'from=2026-02-01&to=2026-02-30',
    ]) {
      const bad = await t.call('GET', `/api/v1/statistics/refusals?${query}`, { token: a.system });
      expect(bad.status, query).toBe(422);
      expect(bad.body.error.code).toBe(4220);
    }
    expect((await t.admin('GET', '/admin/v1/accounts/999999/refusals')).status).toBe(404);
  });

  it.runIf(engine === 'postgres')("takes back a batch's unstored flood counts by the table's key", async () => {
    await t.testDb.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const fixes = new Map([[RU, { appended: 2, kept: [7] }]]);
      const plan = JSON.stringify(await planOf(tx, (explaining) => floodTakeBack(explaining, 1, fixes, t.clock.now())));
      expect(plan).toContain('"Index Name":"flood_recent_pkey"');
      expect(plan).not.toContain('"Node Type":"Seq Scan"');
    });
  });

  it('forgets flood counts after their hour and spend after its day (the guard job)', async () => {
    const a = await account();
    await setting(a, { flood: { identical: 1, any: 1 }, dailySpendLimit: { RUB: 100 } });
    expect(await send(a, [message('SMS', { destination: RU })])).toEqual([201]);
    const rows = async (table: string) =>
      (
        await t.testDb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [a.id])
      )[0]!.n;
    expect(await rows('flood_recent')).toBe(1);
    expect(await rows('daily_spend')).toBe(1);
    t.clock.advance(2 * 86_400_000);
    await guardJobs({ db: t.testDb.db, clock: t.clock })[0]!.run();
    expect(await rows('flood_recent')).toBe(0);
    expect(await rows('daily_spend')).toBe(0);
  });

  it("refuses a dispatch's destination in a country not allowed, and counts it", async () => {
    const a = await account();
    await setting(a, { geoPermissions: { allow: ['RU'], mode: 'enforce' } });
    const created = await t.call('POST', '/api/v1/dispatch', {
      token: a.traffic,
      body: { dispatchName: 'Guarded', channelType: 'SMS', senderName: SENDER, content: 'Hello' },
    });
    expect(created.status).toBe(201);
    const added = await t.call('POST', `/api/v1/dispatch/${created.body.dispatchId}/messages`, {
      token: a.traffic,
      body: [{ destination: RU }, { destination: DE }],
    });
    expect(added.body[0].messageUuid).toBeDefined();
    expect(added.body[1]).toEqual({ destination: DE, errorCode: 4035, msg: 'Destination country not allowed: DE' });
    expect((await refusals(a)).byCode).toEqual({ 4035: 1 });
  });
});
