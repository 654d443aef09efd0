import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { FLASHCALL, SMS, type VerifyClient, verifyHarness } from '../helpers/verify.js';
import { waitFor } from '../helpers/waitFor.js';

const START = '2026-03-10T09:00:00Z';

/**
 * Statistics of verification (GET /api/v1/verifiers/statistics, TOKEN_2): sends, confirmations and conversion rate
 * per verifier and per channel, counted live while codes are kept and from their rollup once the retention job has
 * deleted them; an account sees its own codes only. Outcomes by the destination's last digit (0 and 6 delivered,
 * 7 undelivered).
 */
describe.each(ENGINES)('verification statistics (%s)', (engine) => {
  let t: TestHerald;
  let a: VerifyClient;
  /** A second verifier of account a: SMS only. */
  let a2: VerifyClient;
  let b: VerifyClient;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 5 } });
  });
  afterAll(async () => t?.close());

  const { client, sent, check, steps, codeOf, wrongOf } = verifyHarness(() => t);
  const statistics = (c: Pick<VerifyClient, 'system'>, query: string) =>
    t.call('GET', `/api/v1/verifiers/statistics?${query}`, { token: c.system });
  const figures = async (c: Pick<VerifyClient, 'system'>, query = 'from=2026-03-10&to=2026-03-11') => {
    const reply = await statistics(c, query);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body;
  };
  const settled = (uuid: string, count: number) =>
    waitFor(async () => {
      const rows = await steps(uuid);
      return rows.length === count && rows.every((r) => r.status !== 'sending' && r.status !== 'sent');
    });

  /** Verifiers made at one instant are listed by gatewayId. */
  const listed = <T extends { gatewayId: string }>(items: T[]): T[] =>
    items.sort((x, y) => (x.gatewayId < y.gatewayId ? -1 : 1));
  /** What account a's codes make: see the first test. */
  const expected = () => ({
    from: '2026-03-10T00:00:00Z',
    to: '2026-03-11T00:00:00Z',
    verifiers: listed([
      {
        gatewayId: a.gatewayId,
        name: 'Sign-in' as string | null,
        sends: 2,
        confirmations: 2,
        conversionRate: 1,
        channels: [
          { channelType: 'FLASHCALL', sends: 2, confirmations: 1, conversionRate: 0.5 },
          { channelType: 'SMS', sends: 1, confirmations: 1, conversionRate: 1 },
        ],
      },
      {
        gatewayId: a2.gatewayId,
        name: 'SMS only',
        sends: 3,
        confirmations: 0,
        conversionRate: 0,
        channels: [{ channelType: 'SMS', sends: 3, confirmations: 0, conversionRate: 0 }],
      },
    ]),
    channels: [
      { channelType: 'FLASHCALL', sends: 2, confirmations: 1, conversionRate: 0.5 },
      { channelType: 'SMS', sends: 4, confirmations: 1, conversionRate: 0.25 },
    ],
    total: { sends: 5, confirmations: 2, conversionRate: 0.4 },
  });

  it('counts sends and confirmations per verifier and per channel of the step confirmed and of each step', async () => {
    a = await client({ workflow: [FLASHCALL, SMS] });
    const made = await t.call('POST', '/api/v1/verifiers', {
      token: a.system,
      body: { name: 'SMS only', brand: 'Shop', workflow: [SMS] },
    });
    a2 = { ...a, gatewayId: made.body.gatewayId };
    b = await client({ workflow: [SMS] });
    // Nothing sent yet: every verifier listed, with zeros.
    expect((await figures(a)).verifiers).toEqual(
      listed([
        { gatewayId: a.gatewayId, name: 'Sign-in', sends: 0, confirmations: 0, conversionRate: null, channels: [] },
        { gatewayId: a2.gatewayId, name: 'SMS only', sends: 0, confirmations: 0, conversionRate: null, channels: [] },
      ]),
    );

    // The flash call is not delivered, the SMS is: confirmed after the SMS.
    const fallback = await sent(a, '79161500017');
    await settled(fallback, 2);
    expect(await check(a, fallback, await codeOf(fallback))).toBe('CONFIRMED');
    // The flash call is delivered: confirmed after it; the SMS is never sent.
    const call = await sent(a, '79161500020');
    await settled(call, 1);
    expect(await check(a, call, await codeOf(call))).toBe('CONFIRMED');
    // SMS only: one delivered and not checked, one checked wrong, one not delivered.
    for (const destination of ['79161500030', '79161500040', '79161500057']) {
      const uuid = await sent(a2, destination);
      await settled(uuid, 1);
      if (destination === '79161500040') expect(await check(a2, uuid, wrongOf(await codeOf(uuid)))).toBe('WRONG_CODE');
    }
    // Another account's code, confirmed.
    const other = await sent(b, '79161500060');
    await settled(other, 1);
    expect(await check(b, other, await codeOf(other))).toBe('CONFIRMED');

    expect(await figures(a)).toEqual(expected());
  });

  it("shows an account its own codes only, and another account's verifier as nothing", async () => {
    expect(await figures(b)).toEqual({
      from: '2026-03-10T00:00:00Z',
      to: '2026-03-11T00:00:00Z',
      verifiers: [
        {
          gatewayId: b.gatewayId,
          name: 'Sign-in',
          sends: 1,
          confirmations: 1,
          conversionRate: 1,
          channels: [{ channelType: 'SMS', sends: 1, confirmations: 1, conversionRate: 1 }],
        },
      ],
      channels: [{ channelType: 'SMS', sends: 1, confirmations: 1, conversionRate: 1 }],
      total: { sends: 1, confirmations: 1, conversionRate: 1 },
    });
    const stranger = await figures(b, `from=2026-03-10&to=2026-03-11&gatewayId=${a.gatewayId}`);
    expect(stranger).toMatchObject({ verifiers: [], channels: [], total: { sends: 0, confirmations: 0 } });
  });

  it('filters by verifier and by time', async () => {
    const one = await figures(a, `from=2026-03-10&to=2026-03-11&gatewayId=${a2.gatewayId}`);
    expect(one.verifiers).toEqual(expected().verifiers.filter((v) => v.gatewayId === a2.gatewayId));
    expect(one.total).toEqual({ sends: 3, confirmations: 0, conversionRate: 0 });
    // The codes were sent at 09:00:00.000, on the test clock: a range that ends then holds none of them.
    const before = await figures(a, `from=2026-03-09&to=${START}`);
    expect(before.total).toEqual({ sends: 0, confirmations: 0, conversionRate: null });
    const at = await figures(a, `from=${START}&to=2026-03-10T09:00:00.001Z`);
    expect(at.total).toEqual(expected().total);
  });

  it('refuses a bad range or filter with 422 4220', async () => {
    const refusal = async (query: string) => {
      const reply = await statistics(a, query);
      return [reply.status, reply.body.error];
    };
    expect(await refusal('from=yesterday')).toEqual([422, { code: 4220, msg: 'Invalid from: "yesterday"' }]);
    expect(await refusal('from=2026-03-11&to=2026-03-10')).toEqual([
      422,
      { code: 4220, msg: 'Invalid from: "2026-03-11" (must be before to)' },
    ]);
    expect(await refusal('from=2025-01-01&to=2026-03-10')).toEqual([
      422,
      { code: 4220, msg: 'Invalid to: "2026-03-10" (at most 400 days after from)' },
    ]);
    expect((await refusal(`gatewayId=${'x'.repeat(65)}`))[1]).toMatchObject({ code: 4220 });
    expect(await refusal('groupBy=day')).toEqual([422, { code: 4220, msg: 'Invalid groupBy' }]);
    const traffic = await t.call('GET', '/api/v1/verifiers/statistics', { token: a.traffic });
    expect([traffic.status, traffic.body.error.code]).toEqual([403, 4030]);
  });

  it('keeps the figures of codes the retention job deleted, and of a deleted verifier', async () => {
    expect((await t.call('DELETE', `/api/v1/verifiers/${a2.gatewayId}`, { token: a.system })).status).toBe(204);
    // A day after the codes expired (300 s), the job deletes them and rolls their figures up by the hour.
    t.clock.advance(300_000 + 24 * 3600_000 + 1000);
    await t.herald.jobs!.run('verification-retention');
    const kept = await t.testDb.db.query('SELECT id FROM verifications WHERE account_id = $1', [a.accountId]);
    expect(kept).toEqual([]);
    const after = expected();
    // Listed after the verifiers the account has.
    const deleted = after.verifiers.find((v) => v.gatewayId === a2.gatewayId)!;
    after.verifiers = [...after.verifiers.filter((v) => v !== deleted), { ...deleted, name: null }];
    expect(await figures(a)).toEqual(after);
    expect((await figures(b)).total).toEqual({ sends: 1, confirmations: 1, conversionRate: 1 });
    // Rolled up by the hour they were sent in: a range must hold the start of that hour.
    expect((await figures(a, `from=${START}&to=2026-03-10T09:00:00.001Z`)).total).toEqual(after.total);
    expect((await figures(a, 'from=2026-03-10T09:00:00.001Z&to=2026-03-11')).total.sends).toBe(0);
  });
});
