import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorState } from '../../src/connectors/connector.js';
import { ConnectorStatusWriter, processName } from '../../src/connectors/connectorStatus.js';
import { connectorStatusUpsert } from '../../src/connectors/connectorStatusSql.js';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const smsc = (items: any[], process?: string) =>
  items.find((c) => c.id === 'sim-smsc' && (process === undefined || c.process === process));

describe.each(ENGINES)('connectors with live state for the operator (DESIGN 2, 8) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const connectors = async () => {
    const reply = await t.admin('GET', '/admin/v1/connectors');
    expect(reply.status).toBe(200);
    return reply.body as { items: any[]; queue: any[] };
  };

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  it('lists the SMPP connector of the worker, bound, with its window, and the queue', async () => {
    const body = await waitFor(async () => {
      const b = await connectors();
      return smsc(b.items)?.state === 'bound' ? b : undefined;
    });
    expect(smsc(body.items)).toEqual({
      id: 'sim-smsc',
      type: 'smpp',
      channel: 'SMS',
      process: processName(),
      available: true,
      state: 'bound',
      inFlight: expect.any(Number),
      window: 200,
      mps: 20_000,
      submitted: expect.any(Number),
      submitRate: expect.toSatisfy((v: unknown) => v === null || typeof v === 'number'),
      lastError: null,
      lastErrorAt: null,
      queued: expect.any(Number),
      profile: null,
      balance: null,
      throttled: 0,
      pausedUntil: null,
      updatedAt: expect.stringMatching(ISO),
      stale: false,
    });
    expect(body.items.map((c) => c.channel)).toEqual(expect.arrayContaining(['SMS', 'WHATSAPP', 'VIBER']));
    expect(body.queue).toContainEqual({
      state: 'waiting',
      messages: expect.any(Number),
      oldestAgeSeconds: expect.any(Number),
    });
  });

  it('shows submitted growing, and a submission rate, after sending', async () => {
    const before = smsc((await connectors()).items).submitted as number;
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: Array.from({ length: 5 }, (_, i) => message('SMS', { destination: `7916123450${i}` })),
    });
    expect(sent.body.errors).toBe(false);
    const after = await waitFor(async () => {
      const c = smsc((await connectors()).items);
      return c.submitted >= before + 5 && c.submitRate > 0 ? c : undefined;
    });
    expect(after.submitted).toBeGreaterThanOrEqual(before + 5);
  });

  it('flags the rows of a process that stopped reporting as stale, and drops its own rows when it stops', async () => {
    const state: ConnectorState = {
      id: 'sim-smsc',
      type: 'smpp',
      channel: 'SMS',
      available: true,
      state: 'bound',
      inFlight: 0,
      window: 10,
      mps: 5,
      submitted: 7,
      lastError: null,
    };
    await connectorStatusUpsert(t.testDb.db, 'gone-host:1', [state], new Date(t.clock.now().getTime() - 30_000));
    const body = await connectors();
    expect(smsc(body.items, 'gone-host:1')).toMatchObject({ stale: true, window: 10, submitted: 7, submitRate: null });
    const own = smsc(body.items.filter((c) => c.process !== 'gone-host:1'));
    expect(own.stale).toBe(false);

    await t.herald.connectorStatus!.stop();
    const left = (await connectors()).items;
    expect(left.map((c) => c.process)).toEqual(['gone-host:1']);
  });
});

describe.each(ENGINES)('an SMSC that throttles, seen by the operator (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  beforeAll(async () => {
    // The clock stands still: the pause lasts until the test moves it.
    t = await startTestHerald(engine, { delivery: { delayMs: 20 }, clock: new TestClock('2026-03-10T09:00:00Z') });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  it('shows the throttled answers and the pause with its end in the connectors list and the metrics', async () => {
    const simulator = t.simulators!.smsc;
    simulator.refuseSubmissions(SMPP_STATUS.RTHROTTLED);
    await t.send(account.traffic, [message('SMS', { destination: '79161239901', content: 'throttled' })]);
    const connector = t.herald.connectors.find((c) => c.id === 'sim-smsc')!;
    await waitFor(() => connector.state().throttled === 1);
    await t.herald.connectorStatus!.report();
    const item = smsc((await t.admin('GET', '/admin/v1/connectors')).body.items);
    expect(item).toMatchObject({ throttled: 1, pausedUntil: '2026-03-10T09:00:00Z' });
    // The pause (0.5 s) ends on the second: shown to the millisecond by the metrics.
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toContain('herald_connector_throttled_total{connector="sim-smsc",channel="SMS"} 1\n');
    expect(metrics).toContain('herald_connector_paused_seconds{connector="sim-smsc",channel="SMS"} 0.5\n');

    simulator.refuseSubmissions(undefined);
    t.clock.advance(500);
    await waitFor(() => simulator.submissions.some((s) => s.text === 'throttled' && s.status === 0));
    await t.herald.connectorStatus!.report();
    expect(smsc((await t.admin('GET', '/admin/v1/connectors')).body.items)).toMatchObject({
      throttled: 1,
      pausedUntil: null,
    });
    expect(await (await fetch(`${t.url}/metrics`)).text()).toContain(
      'herald_connector_paused_seconds{connector="sim-smsc",channel="SMS"} 0\n',
    );
  });
});

describe.each(ENGINES)('connector status seen from an api process (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => t?.close());

  it('shows what worker processes report, with the rate between their last two reports', async () => {
    expect((await t.admin('GET', '/admin/v1/connectors')).body.items).toEqual([]);
    let submitted = 100;
    const states = (): ConnectorState[] => [
      {
        id: 'smpp-1',
        type: 'smpp',
        channel: 'SMS',
        available: false,
        state: 'connecting',
        inFlight: 3,
        window: 50,
        mps: 100,
        submitted,
        lastError: 'ECONNREFUSED',
      },
    ];
    const writer = new ConnectorStatusWriter(
      { db: t.testDb.db, clock: t.clock, log: pino({ level: 'silent' }), states },
      { intervalMs: 60_000, process: 'worker-a:42' },
    );
    await writer.report();
    let item = (await t.admin('GET', '/admin/v1/connectors')).body.items[0];
    expect(item).toEqual({
      id: 'smpp-1',
      type: 'smpp',
      channel: 'SMS',
      process: 'worker-a:42',
      available: false,
      state: 'connecting',
      inFlight: 3,
      window: 50,
      mps: 100,
      submitted: 100,
      submitRate: null,
      lastError: 'ECONNREFUSED',
      lastErrorAt: null,
      queued: 0,
      profile: null,
      balance: null,
      throttled: 0,
      pausedUntil: null,
      updatedAt: '2026-03-10T09:00:00Z',
      stale: false,
    });
    t.clock.advance(2000);
    submitted = 130;
    await writer.report();
    item = (await t.admin('GET', '/admin/v1/connectors')).body.items[0];
    expect(item).toMatchObject({ submitted: 130, submitRate: 15, updatedAt: '2026-03-10T09:00:02Z', stale: false });
    t.clock.advance(10_001);
    expect((await t.admin('GET', '/admin/v1/connectors')).body.items[0].stale).toBe(true);
    // A process silent for an hour is forgotten by the next report of any process.
    t.clock.advance(3600_000);
    const other = new ConnectorStatusWriter(
      { db: t.testDb.db, clock: t.clock, log: pino({ level: 'silent' }), states: () => [] },
      { intervalMs: 60_000, process: 'worker-b:7' },
    );
    await other.report();
    expect((await t.admin('GET', '/admin/v1/connectors')).body.items).toEqual([]);
  });

  it('needs the admin token', async () => {
    expect((await t.call('GET', '/admin/v1/connectors')).status).toBe(401);
  });
});
