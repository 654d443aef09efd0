import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedSimulators, type EmbeddedSimulators } from '../../src/simulators/embeddedSimulators.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { FLASHCALL, SMS, type VerifyClient, verifyHarness, VOICECODE } from '../helpers/verify.js';
import { untilWritten } from '../helpers/signals.js';
import { waitFor } from '../helpers/waitFor.js';
import { messageRows } from '../helpers/messageRows.js';

/**
 * Sending and checking codes through the real pipeline (DESIGN 16): the SMSC simulator over SMPP for SMS, the
 * provider simulator over HTTP for FLASHCALL and VOICECODE; outcomes by the destination's last digit (0 and 6
 * delivered, 7 undelivered). The clock stands still unless a test moves it; step timeouts move on when the test
 * runs the timeout job.
 */
describe.each(ENGINES)('verification (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 5 } });
  });
  afterAll(async () => t?.close());

  const { client, send, sent, check, steps, codeOf, wrongOf } = verifyHarness(() => t);
  const cascade = async (c: VerifyClient, uuid: string) =>
    (await t.call('GET', `/api/v1/message/cascade/${uuid}`, { token: c.traffic })).body;
  const conversions = (c: VerifyClient) =>
    t.testDb.db.query('SELECT message_id, result FROM flashcall_conversions WHERE account_id = $1', [c.accountId]);
  const timeouts = () => t.herald.jobs!.run('cascade-step-timeouts');

  it('sends the code as an AUTHORIZE SMS `<brand>: <code>` and confirms the right code', async () => {
    const c = await client({ codeLength: 6, workflow: [SMS] });
    const uuid = await sent(c, '+7 (916) 140-00-10');
    await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    const [step] = await steps(uuid);
    expect(step).toMatchObject({ channel_type: 'SMS', traffic_type: 'AUTHORIZE' });
    expect(step!.content).toMatch(/^Shop: \d{6}$/);
    const code = await codeOf(uuid);
    const wrong = code === '000000' ? '000001' : '000000';
    expect(await check(c, uuid, wrong)).toBe('WRONG_CODE');
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
    // Answered again for the same code (a client retrying), until the code expires.
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
    t.clock.advance(300_000);
    expect(await check(c, uuid, code)).toBe('EXPIRED');
  });

  it('stores only an HMAC of the code, bound to the uuid', async () => {
    const c = await client({ workflow: [SMS] });
    const first = await sent(c, '79161400020');
    const second = await sent(c, '79161400030');
    const rows = await t.testDb.db.query<Record<string, unknown>>(
      'SELECT * FROM verifications WHERE account_id = $1 ORDER BY created_at, id',
      [c.accountId],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(Buffer.from(row.code_hmac as Uint8Array)).toHaveLength(32);
      const code = await codeOf(row.id as string);
      expect(JSON.stringify(row)).not.toContain(`"${code}"`);
    }
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set([first, second]));
  });

  it('falls back from a FLASHCALL not delivered to SMS; the call carries the code as its last digits', async () => {
    const c = await client({ workflow: [FLASHCALL, SMS] });
    const uuid = await sent(c, '79161400017');
    await waitFor(async () => (await steps(uuid)).length === 2, { timeoutMs: 30_000 });
    const rows = await steps(uuid);
    expect(rows.map((r) => [r.cascade_step, r.channel_type, r.traffic_type])).toEqual([
      [1, 'FLASHCALL', 'AUTHORIZE'],
      [2, 'SMS', 'AUTHORIZE'],
    ]);
    expect(rows[0]!.status).toBe('undelivered');
    const code = rows[0]!.content as string;
    expect(code).toMatch(/^\d{4}$/);
    expect(rows[1]!.content).toBe(`Shop: ${code}`);
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
    // The call did not reach the phone: it verified nothing.
    expect(await conversions(c)).toEqual([]);
  });

  it('records a delivered flash call of a confirmed code as a NUMBER_VERIFIED conversion', async () => {
    const c = await client({ workflow: [FLASHCALL, SMS] });
    const uuid = await sent(c, '79161400150');
    await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    const code = await codeOf(uuid);
    expect(await conversions(c)).toEqual([]);
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
    expect(await conversions(c)).toEqual([{ message_id: uuid, result: 'NUMBER_VERIFIED' }]);
    // Checked again: recorded once.
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
    expect(await conversions(c)).toHaveLength(1);
  });

  it('moves on when a step is delivered but not confirmed within its timeout (test clock)', async () => {
    const c = await client({ workflow: [SMS, VOICECODE] });
    const uuid = await sent(c, '79161400046');
    await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    // Delivered: the cascade waits for the step's timeout instead of ending.
    await timeouts();
    expect(await steps(uuid)).toHaveLength(1);
    expect(await cascade(c, uuid)).toMatchObject({ state: 'running', currentStep: 1 });
    t.clock.advance(59_000);
    await timeouts();
    expect(await steps(uuid)).toHaveLength(1);
    t.clock.advance(1000);
    await timeouts();
    const rows = await steps(uuid);
    expect(rows.map((r) => [r.cascade_step, r.channel_type])).toEqual([
      [1, 'SMS'],
      [2, 'VOICECODE'],
    ]);
    const code = await codeOf(uuid);
    expect(rows[1]!.content).toEqual({ contentType: 'text', text: `Код авторизации от Shop: ${code}.` });
    expect((await cascade(c, uuid)).steps[0].movedOn).toBe('timeout');
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
  });

  it('stops the rest of the workflow once confirmed', async () => {
    const c = await client({ workflow: [SMS, VOICECODE] });
    const uuid = await sent(c, '79161400056');
    await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    expect(await check(c, uuid, await codeOf(uuid))).toBe('CONFIRMED');
    t.clock.advance(61_000);
    await timeouts();
    expect(await steps(uuid)).toHaveLength(1);
    expect(await cascade(c, uuid)).toMatchObject({ state: 'stopped', currentStep: 1 });
  });

  it('creates no step once the code has expired', async () => {
    const c = await client({ codeTtl: 60, workflow: [{ ...SMS, timeout: 30 }, { ...VOICECODE, timeout: 30 }, SMS] });
    const uuid = await sent(c, '79161400066');
    await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    t.clock.advance(30_000);
    await timeouts();
    expect((await steps(uuid)).map((r) => r.channel_type)).toEqual(['SMS', 'VOICECODE']);
    // The second step's time runs from when it went out: on a busy machine it may still be queued here.
    await untilWritten(t.herald, async () => (await steps(uuid))[1]?.status !== 'sending');
    t.clock.advance(30_000);
    // A pass skips a cascade whose step's receipt is being recorded at that moment (SKIP LOCKED): the next takes it.
    await waitFor(async () => {
      await timeouts();
      return (await cascade(c, uuid)).state !== 'running';
    });
    expect((await steps(uuid)).map((r) => r.channel_type)).toEqual(['SMS', 'VOICECODE']);
    expect(await cascade(c, uuid)).toMatchObject({ state: 'done', currentStep: 2 });
    expect(await check(c, uuid, await codeOf(uuid))).toBe('EXPIRED');
  });

  it('expires a code after maxChecks checks, the right code included (brute force)', async () => {
    const c = await client({ maxChecks: 3, workflow: [SMS] });
    const uuid = await sent(c, '79161400070');
    const code = await codeOf(uuid);
    const wrong = code === '0000' ? '0001' : '0000';
    for (let i = 0; i < 3; i++) expect(await check(c, uuid, wrong)).toBe('WRONG_CODE');
    expect(await check(c, uuid, code)).toBe('EXPIRED');
  });

  it('stops the rest of the workflow once maxChecks wrong checks have used the code up', async () => {
    const c = await client({ maxChecks: 2, workflow: [SMS, VOICECODE] });
    const uuid = await sent(c, '79161400196');
    await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    const code = await codeOf(uuid);
    expect(await check(c, uuid, wrongOf(code))).toBe('WRONG_CODE');
    expect(await check(c, uuid, wrongOf(code))).toBe('WRONG_CODE');
    // Used up: a guesser makes Herald send nothing more to the phone.
    expect(await cascade(c, uuid)).toMatchObject({ state: 'stopped', currentStep: 1 });
    t.clock.advance(61_000);
    await timeouts();
    expect(await steps(uuid)).toHaveLength(1);
    expect(await check(c, uuid, code)).toBe('EXPIRED');
  });

  it('ends the codes of every account past their codeTtl at the expiry job, their workflows stopped', async () => {
    const a = await client({ codeTtl: 60, workflow: [SMS, VOICECODE] });
    const b = await client({ codeTtl: 60, workflow: [SMS, VOICECODE] });
    const codes = [await sent(a, '79161400506'), await sent(a, '79161400516'), await sent(b, '79161400506')];
    const confirmed = await sent(b, '79161400526');
    for (const uuid of [...codes, confirmed])
      await untilWritten(t.herald, async () => (await steps(uuid))[0]?.status === 'delivered');
    expect(await check(b, confirmed, await codeOf(confirmed))).toBe('CONFIRMED');
    const states = async () =>
      (
        await t.testDb.db.query<{ id: string; state: string }>(
          'SELECT id, state FROM verifications WHERE account_id = ANY($1::bigint[])',
          [[a.accountId, b.accountId]],
        )
      ).reduce<Record<string, string>>((all, row) => ({ ...all, [row.id]: row.state }), {});
    t.clock.advance(59_999);
    await t.herald.jobs!.run('verification-expiry');
    expect(Object.values(await states()).sort()).toEqual(['confirmed', 'pending', 'pending', 'pending']);
    t.clock.advance(1);
    await t.herald.jobs!.run('verification-expiry');
    const after = await states();
    expect(codes.map((uuid) => after[uuid])).toEqual(['expired', 'expired', 'expired']);
    expect(after[confirmed]).toBe('confirmed');
    for (const [c, uuid] of [
      [a, codes[0]],
      [a, codes[1]],
      [b, codes[2]],
    ] as const)
      expect(await cascade(c, uuid!)).toMatchObject({ state: 'stopped', currentStep: 1 });
    t.clock.advance(1000);
    await timeouts();
    for (const uuid of codes) expect(await steps(uuid)).toHaveLength(1);
  });

  it('takes a code sent as a number as its digits', async () => {
    const c = await client({ codeLength: 6, workflow: [SMS] });
    // A code with a leading zero has no number that writes it: send to new destinations until one has none.
    let uuid = '';
    let code = '0';
    for (let i = 0; code.startsWith('0'); i++) {
      expect(i).toBeLessThan(20);
      uuid = await sent(c, `791614003${String(i).padStart(2, '0')}`);
      code = await codeOf(uuid);
    }
    expect(await check(c, uuid, Number(code) + 1)).toBe('WRONG_CODE');
    expect(await check(c, uuid, Number(code))).toBe('CONFIRMED');
    expect(await check(c, uuid, Number(code))).toBe('CONFIRMED');
    for (const bad of [12.5, -123456, true, null, 1e21]) {
      const reply = await t.call('POST', '/api/v1/verifier/check', { token: c.verify, body: { uuid, code: bad } });
      expect([reply.status, reply.body.error?.code], JSON.stringify(bad)).toEqual([422, 4220]);
    }
  });

  it('replaces an older code with a new send to the same destination, and stops its workflow', async () => {
    const c = await client({ workflow: [SMS, VOICECODE] });
    const older = await sent(c, '79161400086');
    await untilWritten(t.herald, async () => (await steps(older))[0]?.status === 'delivered');
    const olderCode = await codeOf(older);
    const newer = await sent(c, '79161400086');
    expect(newer).not.toBe(older);
    expect(await check(c, older, olderCode)).toBe('EXPIRED');
    expect(await cascade(c, older)).toMatchObject({ state: 'stopped' });
    // Another destination keeps its own code.
    const elsewhere = await sent(c, '79161400096');
    expect(await check(c, newer, await codeOf(newer))).toBe('CONFIRMED');
    expect(await check(c, elsewhere, await codeOf(elsewhere))).toBe('CONFIRMED');
  });

  it('keeps an expired code a day (EXPIRED), then deletes it (NOT_FOUND)', async () => {
    const c = await client({ codeTtl: 60, workflow: [SMS] });
    const uuid = await sent(c, '79161400160');
    const code = await codeOf(uuid);
    t.clock.advance(60_000);
    await t.herald.jobs!.run('verification-retention');
    expect(await check(c, uuid, code)).toBe('EXPIRED');
    t.clock.advance(24 * 3600_000);
    await t.herald.jobs!.run('verification-retention');
    expect(await check(c, uuid, code)).toBe('EXPIRED');
    t.clock.advance(1000);
    await t.herald.jobs!.run('verification-retention');
    expect(await check(c, uuid, code)).toBe('NOT_FOUND');
  });

  it('takes 5 sends per destination and verifier in 10 minutes, then 429 4290 with Retry-After', async () => {
    const c = await client({ workflow: [SMS] });
    for (let i = 0; i < 5; i++) {
      await sent(c, '79161400100');
      t.clock.advance(60_000);
    }
    const refused = await send(c, '79161400100');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({ code: 4290, msg: 'Too many requests; retry after 300 s' });
    expect(refused.headers.get('retry-after')).toBe('300');
    // Other destinations, and other verifiers, are counted apart.
    await sent(c, '79161400110');
    const other = await client({ workflow: [SMS] });
    await sent(other, '79161400100');
    t.clock.advance(300_000);
    await sent(c, '79161400100');
  });

  it('counts sends racing to one destination exactly: 5 taken, the rest 429, one code pending', async () => {
    const c = await client({ workflow: [SMS] });
    const replies = await Promise.all(Array.from({ length: 8 }, () => send(c, '79161400170')));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const states = await t.testDb.db.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM verifications WHERE account_id = $1 GROUP BY state ORDER BY state',
      [c.accountId],
    );
    expect(states).toEqual([
      { state: 'pending', n: 1 },
      { state: 'replaced', n: 4 },
    ]);
  });

  it('counts checks racing on one code exactly: maxChecks wrong guesses, then EXPIRED', async () => {
    const c = await client({ maxChecks: 3, workflow: [SMS] });
    const uuid = await sent(c, '79161400180');
    const code = await codeOf(uuid);
    const wrong = code === '0000' ? '0001' : '0000';
    const answers = await Promise.all(Array.from({ length: 6 }, () => check(c, uuid, wrong)));
    expect(answers.sort()).toEqual(['EXPIRED', 'EXPIRED', 'EXPIRED', 'WRONG_CODE', 'WRONG_CODE', 'WRONG_CODE']);
    expect(await check(c, uuid, code)).toBe('EXPIRED');
  });

  it("answers NOT_FOUND for another account's uuid, and for no uuid at all", async () => {
    const c = await client({ workflow: [SMS] });
    const uuid = await sent(c, '79161400120');
    const stranger = await client({ workflow: [SMS] });
    expect(await check(stranger, uuid, await codeOf(uuid))).toBe('NOT_FOUND');
    expect(await check(c, '00000000-0000-7000-8000-000000000000', '1234')).toBe('NOT_FOUND');
    expect(await check(c, 'not-a-uuid', '1234')).toBe('NOT_FOUND');
    // The stranger's tries did not count against the code.
    expect(await check(c, uuid, await codeOf(uuid))).toBe('CONFIRMED');
  });

  it('refuses an unknown verifier, a bad destination and a channel not in the workflow', async () => {
    const c = await client({ workflow: [SMS] });
    const unknown = await t.call('POST', '/api/v1/verifier/send', {
      token: c.verify,
      body: { gatewayId: 'nosuchgate', destination: '79161400130' },
    });
    expect([unknown.status, unknown.body.error]).toEqual([404, { code: 4040, msg: 'Verifier nosuchgate not found' }]);
    const bad = await send(c, '12');
    expect([bad.status, bad.body.error.code, bad.body.error.msg]).toEqual([422, 4220, 'Invalid msisdn']);
    const channel = await send(c, '79161400130', { channelType: 'VOICECODE' });
    expect([channel.status, channel.body.error.msg]).toEqual([
      422,
      'Invalid channelType: VOICECODE (not in the workflow)',
    ]);
    const missing = await t.call('POST', '/api/v1/verifier/send', { token: c.verify, body: { gatewayId: 'x' } });
    expect(missing.body.error).toEqual({ code: 4220, msg: 'Missing destination' });
  });

  it('takes TOKEN_3 only, Basic or Bearer', async () => {
    const c = await client({ workflow: [SMS] });
    const body = { gatewayId: c.gatewayId, destination: '79161400140' };
    const bearer = await t.call('POST', '/api/v1/verifier/send', { auth: `Bearer ${c.verify}`, body });
    expect(bearer.status).toBe(200);
    const traffic = await t.call('POST', '/api/v1/verifier/send', { token: c.traffic, body });
    expect([traffic.status, traffic.body.error.code]).toEqual([403, 4030]);
  });

  it('answers a send retried with its Idempotency-Key with the first uuid, and sends no second code', async () => {
    const c = await client({ workflow: [SMS] });
    const body = { gatewayId: c.gatewayId, destination: '79161400150' };
    const keyed = (key: string, payload: object = body) =>
      t.call('POST', '/api/v1/verifier/send', { token: c.verify, body: payload, headers: { 'idempotency-key': key } });
    const first = await keyed('otp-1');
    expect(first.status).toBe(200);
    const again = await keyed('otp-1');
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([200, first.body, 'true']);
    const rows = await t.testDb.db.query('SELECT id FROM verifications WHERE account_id = $1', [c.accountId]);
    expect(rows).toEqual([{ id: first.body.uuid }]);
    // The same key with another body is a conflict; another key is another send (the first code is replaced).
    const other = await keyed('otp-1', { ...body, destination: '79161400160' });
    expect([other.status, other.body.error.code]).toEqual([409, 4090]);
    const second = await keyed('otp-2');
    expect(second.body.uuid).not.toBe(first.body.uuid);
  });
});

/** The send limit per client address (HERALD_VERIFY_SENDS_PER_ADDRESS), on Herald's clock. */
describe.each(ENGINES)('verification sends per client address (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_VERIFY_SENDS_PER_ADDRESS: '3' } });
  });
  afterAll(async () => t?.close());

  it('takes 3 sends in 10 minutes from one address, whatever the destination, then 429 4290', async () => {
    const account = await t.createAccount({ senderNames: [['SMS', 'Shop']] });
    const verify = (await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' })).body.token;
    const made = await t.call('POST', '/api/v1/verifiers', {
      token: account.system,
      body: { name: 'Sign-in', brand: 'Shop', workflow: [SMS] },
    });
    const send = (destination: string) =>
      t.call('POST', '/api/v1/verifier/send', { token: verify, body: { gatewayId: made.body.gatewayId, destination } });
    for (const destination of ['79161400210', '79161400220', '79161400230'])
      expect((await send(destination)).status).toBe(200);
    const refused = await send('79161400240');
    expect([refused.status, refused.body.error.code]).toEqual([429, 4290]);
    // One send comes back every 200 s (3 per 600 s).
    expect(refused.headers.get('retry-after')).toBe('200');
    t.clock.advance(200_000);
    expect((await send('79161400240')).status).toBe(200);
    expect((await send('79161400250')).status).toBe(429);
  });

  it("counts each account apart: one account's sends from an address never spend another's", async () => {
    const { client, send } = verifyHarness(() => t);
    const first = await client({ workflow: [SMS] });
    const second = await client({ workflow: [SMS] });
    for (const destination of ['79161400310', '79161400320', '79161400330'])
      expect((await send(first, destination)).status).toBe(200);
    expect((await send(first, '79161400340')).status).toBe(429);
    // The same client address (both come from 127.0.0.1), another account: its own 3.
    for (const destination of ['79161400310', '79161400320', '79161400330'])
      expect((await send(second, destination)).status).toBe(200);
    expect((await send(second, '79161400340')).status).toBe(429);
  });
});

/**
 * A step not yet sent when its code ends (DESIGN 16): FLASHCALL has no route in this Herald, so a FLASHCALL step
 * waits in the queue, as one does behind a carrier's outage (retried an hour later: the test clock never gets there).
 * A used-up or expired code stops it as a confirmation would: unsent, refunded, and the cascade stopped.
 */
describe.each(ENGINES)('verification: a step still queued when its code ends (%s)', (engine) => {
  let t: TestHerald;
  let testDb: TestDb;
  let simulators: EmbeddedSimulators;

  beforeAll(async () => {
    const clock = new TestClock();
    simulators = await startEmbeddedSimulators({ delayMs: 5, clock });
    testDb = await openTestDb(engine);
    const routes = simulators.configFile.routes.filter((route) => route.channel !== 'FLASHCALL');
    t = await startTestHerald(engine, {
      clock,
      delivery: { delayMs: 5, submitter: { noRouteRetryMs: 3600_000 } },
      on: { testDb, simulators: { ...simulators, configFile: { ...simulators.configFile, routes } } },
    });
  });
  afterAll(async () => {
    await t?.close();
    await simulators?.stop();
    await testDb?.drop();
  });

  const { client, sent, check, codeOf, wrongOf } = verifyHarness(() => t);
  const rows = (uuid: string) =>
    t.testDb.db.query<{ status: string; error_code: number | null; price: string; price_refunded: boolean }>(
      `SELECT status, error_code, price, price_refunded, history FROM ${messageRows()} WHERE cascade_id = $1
       ORDER BY cascade_step`,
      [uuid],
    );
  const cascadeState = async (uuid: string) =>
    (await t.testDb.db.query<{ state: string }>('SELECT state FROM cascades WHERE id = $1', [uuid]))[0]?.state;

  /** A code whose SMS was delivered and timed out, and whose FLASHCALL step (priced 2) waits in the queue. */
  const queuedSecondStep = async (verifier: Record<string, unknown>, destination: string) => {
    const c = await client({ workflow: [{ ...SMS, timeout: 30 }, FLASHCALL], ...verifier }, { balance: 100 });
    const tariff = { accountId: c.accountId, channelType: 'FLASHCALL', price: 2, currency: 'RUB' };
    expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    const uuid = await sent(c, destination);
    await untilWritten(t.herald, async () => (await rows(uuid))[0]?.status === 'delivered');
    t.clock.advance(30_000);
    await t.herald.jobs!.run('cascade-step-timeouts');
    // Tried once, no route: back in the queue, in no one's hands.
    await waitFor(async () => {
      const second = (await rows(uuid))[1] as { history?: { retryAt?: string }[] } | undefined;
      return second?.history?.some((h) => h.retryAt !== undefined) ?? false;
    });
    expect((await rows(uuid))[1]).toMatchObject({ status: 'sending', price: expect.anything() });
    return { c, uuid };
  };
  const expectStopped = async (uuid: string) => {
    const [, second] = await rows(uuid);
    expect(second).toMatchObject({ status: 'unsent', error_code: DELIVERY_ERRORS.stopped, price_refunded: true });
    expect(Number(second!.price)).toBe(2);
    expect(await cascadeState(uuid)).toBe('stopped');
  };

  it('stops it once maxChecks wrong checks have used the code up', async () => {
    const { c, uuid } = await queuedSecondStep({ maxChecks: 3 }, '79161400406');
    const code = await codeOf(uuid);
    for (let i = 0; i < 3; i++) expect(await check(c, uuid, wrongOf(code))).toBe('WRONG_CODE');
    await expectStopped(uuid);
    expect(await check(c, uuid, code)).toBe('EXPIRED');
  });

  it('stops it once the code has expired, with no check at all', async () => {
    const { c, uuid } = await queuedSecondStep({ codeTtl: 60 }, '79161400416');
    t.clock.advance(30_000);
    await t.herald.jobs!.run('verification-expiry');
    await expectStopped(uuid);
    expect(await check(c, uuid, await codeOf(uuid))).toBe('EXPIRED');
  });

  it('stops it once the right code confirms, as before', async () => {
    const { c, uuid } = await queuedSecondStep({}, '79161400426');
    expect(await check(c, uuid, await codeOf(uuid))).toBe('CONFIRMED');
    await expectStopped(uuid);
  });
});
