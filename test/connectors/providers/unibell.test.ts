import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/config/index.js';
import { parseConfigFile } from '../../../src/config/configFile.js';
import { DEFAULT_TTL_SECONDS } from '../../../src/schedule/index.js';
import { TestClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { call } from '../../helpers/http.js';
import { UNIBELL_PATH, UnibellSimulator } from '../../helpers/providers/unibellSimulator.js';
import { untilWritten } from '../../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../../helpers/testHerald.js';
import { messageRows } from '../../helpers/messageRows.js';

const KEY = 'd8ac9959r12b43545unibell';
const ID = 'unibell';

/** The FLASHCALL route through the profile `unibell-flashcall`, read as HERALD_CONFIG is, against the simulator. */
const withUnibell =
  (sim: UnibellSimulator) =>
  (file: ConfigFile): ConfigFile =>
    parseConfigFile({
      connectors: [
        ...file.connectors,
        {
          id: ID,
          type: 'http',
          profile: 'unibell-flashcall',
          baseUrl: sim.url,
          secrets: { ACCESS_KEY: KEY },
        },
      ],
      routes: file.routes.map((r) => (r.channel === 'FLASHCALL' ? { ...r, connectors: [ID] } : r)),
    });

describe('the unibell-flashcall profile', () => {
  it('says outright that Unibell reports no status; a webhook added to it is refused', () => {
    const connector = { id: ID, type: 'http', profile: 'unibell-flashcall', secrets: { ACCESS_KEY: KEY } };
    expect(parseConfigFile({ connectors: [connector] }).connectors[0]).toMatchObject({
      channel: 'FLASHCALL',
      baseUrl: 'https://api.unibell.ru',
      status: { none: true },
    });
    const webhook = { none: true, webhook: { signature: { kind: 'none' }, id: '$.id', status: '$.s' } };
    expect(() => parseConfigFile({ connectors: [{ ...connector, status: webhook }] })).toThrow(
      'connectors[0].status.none: a provider that reports no status has no webhook, poll or map',
    );
  });
});

describe("the Unibell simulator speaks Unibell's documented FlashCall API", () => {
  const sim = new UnibellSimulator(KEY);
  beforeAll(() => sim.start());
  afterAll(() => sim.stop());

  const flash = (body: unknown, auth: { header?: string; query?: string } = { header: `AccessKey ${KEY}` }) =>
    call(sim.url, 'POST', UNIBELL_PATH + (auth.query ? `?X-Authorization=${encodeURIComponent(auth.query)}` : ''), {
      body,
      headers: auth.header ? { 'x-authorization': auth.header } : {},
    });

  it('accepts a documented request, keyed by header or query: a requestId, and a from ending in the code', async () => {
    const byHeader = await flash({ number: '79161600010', code: 4821, timeout: 60000 });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body).toEqual({ requestId: expect.any(Number), from: expect.stringMatching(/^\d{7}4821$/) });
    const byQuery = await flash({ number: '79161600011', code: 1000, timeout: 60000 }, { query: `AccessKey ${KEY}` });
    expect(byQuery.status).toBe(200);
    expect(byQuery.body.requestId).not.toBe(byHeader.body.requestId);
    expect(sim.requestsTo('79161600011')[0]).toMatchObject({ authorization: `AccessKey ${KEY}`, status: 200 });
  });

  it('refuses a missing or another key with 1 (401)', async () => {
    const body = { number: '79161600010', code: 4821, timeout: 60000 };
    for (const auth of [{}, { header: 'AccessKey other' }, { header: `Bearer ${KEY}` }]) {
      const reply = await flash(body, auth);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ errorCode: 1, errorReason: 'Authentication required' });
    }
  });

  it('checks each field as documented: number 11, code and timeout 10', async () => {
    const cases: [unknown, number][] = [
      [{ number: '+79161600010', code: 4821, timeout: 60000 }, 11],
      [{ number: '7916160001О', code: 4821, timeout: 60000 }, 11], // a Cyrillic О
      [{ number: '8916', code: 4821, timeout: 60000 }, 11],
      [{ number: 79161600010, code: 4821, timeout: 60000 }, 11],
      [{ code: 4821, timeout: 60000 }, 11],
      [{ number: '79161600010', code: '4821', timeout: 60000 }, 10],
      [{ number: '79161600010', code: 123, timeout: 60000 }, 10], // "0123" has no 4-digit number form
      [{ number: '79161600010', code: 48210, timeout: 60000 }, 10],
      [{ number: '79161600010', code: 4821 }, 10],
      [{ number: '79161600010', code: 4821, timeout: 1.5 }, 10],
      [[], 10],
    ];
    for (const [body, errorCode] of cases) {
      const reply = await flash(body);
      expect({ body, status: reply.status, errorCode: reply.body.errorCode }).toEqual({ body, status: 400, errorCode });
    }
    const notJson = await call(sim.url, 'POST', UNIBELL_PATH, {
      rawBody: 'number=79161600010',
      headers: { 'x-authorization': `AccessKey ${KEY}` },
    });
    expect(notJson).toMatchObject({ status: 400, body: { errorCode: 10, errorReason: 'Invalid request' } });
  });

  it('refuses a destination ending in 8 as an invalid number, and gives the refusals it is told to', async () => {
    const body = { number: '79161600018', code: 4821, timeout: 60000 };
    expect(await flash(body)).toMatchObject({ status: 400, body: { errorCode: 11, errorReason: 'Invalid number' } });
    sim.refuseNext('tooManyRequests');
    sim.refuseNext('insufficientFunds');
    const ok = { ...body, number: '79161600010' };
    expect(await flash(ok)).toMatchObject({ status: 429, body: { errorCode: 4, errorReason: 'Too many requests' } });
    expect(await flash(ok)).toMatchObject({ status: 403, body: { errorCode: 6, errorReason: 'Insufficient funds' } });
    expect((await flash(ok)).status).toBe(200);
  });
});

describe.each(ENGINES)('FLASHCALL through the unibell-flashcall profile (%s)', (engine) => {
  const sim = new UnibellSimulator(KEY);
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    await sim.start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10, configure: withUnibell(sim) },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
    account = await t.createAccount();
  });
  afterAll(async () => {
    await t?.close();
    await sim.stop();
  });

  type Row = { status: string; error_code: number | null; due_at: Date | string | null; lease_expires_at: unknown };
  const row = async (id: string): Promise<Row> => {
    const [m] = await t.testDb.db.query<Row>(
      `SELECT status, error_code, due_at, lease_expires_at FROM ${messageRows()} WHERE id = $1`,
      [id],
    );
    return m!;
  };
  /**
   * Waits, after each batch of the writer, until `done`. A message refused for now waits, unleased, for a time of
   * Herald's clock: the clock is moved there, as time would pass, so that its retry comes without a real wait.
   */
  const untilDone = <T>(ids: readonly string[], done: () => Promise<T | false> | T | false) =>
    untilWritten(
      t.herald,
      async () => {
        const value = await done();
        if (value !== false) return value;
        for (const m of await Promise.all(ids.map(row))) {
          const due = m.status === 'sending' && !m.lease_expires_at && m.due_at ? new Date(m.due_at) : undefined;
          if (due && due > t.clock.now()) t.clock.set(due);
        }
        return false;
      },
      { describe: async () => JSON.stringify(await Promise.all(ids.map(row))) },
    );
  const until = (id: string, status: string) =>
    untilDone([id], async () => {
      const m = await row(id);
      return m.status === status && m;
    });
  const flash = async (destination: string, code: string | number) =>
    (await t.send(account.traffic, [{ channelType: 'FLASHCALL', senderName: 'any', destination, content: code }]))[0]!;

  it('calls with the documented request and keeps the requestId as the carrier id', async () => {
    const id = await flash('79161600010', '4821');
    await until(id, 'sent');
    const [request] = sim.requestsTo('79161600010');
    expect(request).toMatchObject({
      method: 'POST',
      path: UNIBELL_PATH,
      authorization: `AccessKey ${KEY}`,
      contentType: expect.stringMatching(/^application\/json/),
      body: { number: '79161600010', code: 4821, timeout: 60000 },
      status: 200,
    });
    const answer = request!.answer as { requestId: number; from: string };
    expect(answer.from.endsWith('4821')).toBe(true);
    const [submission] = await t.testDb.db.query<{ connector_id: string; carrier_id: string }>(
      'SELECT connector_id, carrier_id FROM submissions WHERE message_id = $1',
      [id],
    );
    expect(submission).toEqual({ connector_id: ID, carrier_id: String(answer.requestId) });
  });

  it('maps the documented refusals of a number (11) and of a request (10) to unsent with their codes', async () => {
    const refused = await flash('79161600018', '4821');
    expect(await until(refused, 'unsent')).toMatchObject({ error_code: 11 });
    // Unibell takes the code as a 4-digit JSON number: 0123 has none (it goes as 123), and the simulator refuses it.
    const leadingZero = await flash('79161600020', '0123');
    expect(await until(leadingZero, 'unsent')).toMatchObject({ error_code: 10 });
    expect(sim.requestsTo('79161600020')[0]?.body).toMatchObject({ code: 123 });
  });

  it('tries again after 429 (4), no money (6) and a key refused (1), then calls', async () => {
    sim.refuseNext('tooManyRequests');
    sim.refuseNext('insufficientFunds');
    const id = await flash('79161600030', 4821);
    await untilDone([id], () => sim.requestsTo('79161600030').length === 2);
    sim.setAccessKey('rotated');
    const later = await flash('79161600040', '5555');
    await untilDone([id, later], () => sim.requestsTo('79161600040').length === 1);
    sim.setAccessKey(KEY);
    await until(id, 'sent');
    await until(later, 'sent');
    // While the key was refused, the first message may have been refused 1 (401) too.
    const first = sim.requestsTo('79161600030').map((r) => r.status);
    expect(first.slice(0, 2)).toEqual([429, 403]);
    expect(first.slice(2, -1).every((status) => status === 401)).toBe(true);
    expect(first.at(-1)).toBe(200);
    const second = sim.requestsTo('79161600040').map((r) => r.status);
    expect([second[0], second.at(-1)]).toEqual([401, 200]);
  });

  it('learns no status, so an accepted call ends undelivered (9005) when its lifetime runs out', async () => {
    const id = await flash('79161600050', '7777');
    await until(id, 'sent');
    // The last test of the file: the clock is not moved back.
    t.clock.advance(DEFAULT_TTL_SECONDS * 1000 + 1000);
    await t.herald.jobs!.run('expire-lifetimes');
    expect(await row(id)).toMatchObject({ status: 'undelivered', error_code: 9005 });
  });
});
