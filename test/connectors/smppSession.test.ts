import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { type SmppHarness, sms, startSmpp } from './smppHarness.js';

describe('SMPP sessions: every timer belongs to its connection', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('gives up a bind that is never answered after the response timeout, and binds again later', async () => {
    h = await startSmpp({ responseTimeoutSeconds: 5, reconnectMinMs: 1000 }, {}, (smsc) => smsc.setSilentBinds(true));
    const { smsc, connector, clock } = h;
    await waitFor(() => smsc.bindAttempts === 1 && connector.state().state === 'binding');
    clock.advance(4999);
    expect(connector.state().state).toBe('binding');
    clock.advance(1);
    await waitFor(() => connector.state().state === 'disconnected');
    expect(connector.state().lastError).toBe('no bind response within 5 s');
    smsc.setSilentBinds(false);
    clock.advance(1000);
    await waitFor(() => connector.state().state === 'bound');
    expect(smsc.bindAttempts).toBe(2);
  });

  it('cancels the enquire_link answer timer with its connection: nothing fires after close', async () => {
    // The enquire_link interval is shorter than the answer timeout, so two answer timers are pending at once.
    h = await startSmpp({ enquireLinkSeconds: 2, responseTimeoutSeconds: 5, reconnectMinMs: 60_000 });
    const { smsc, connector, clock, logs } = h;
    await waitFor(() => connector.available());
    smsc.setStalled(true);
    clock.advance(2000);
    clock.advance(2000);
    expect(connector.sessionStates()[0]!.liveTimers).toBeGreaterThanOrEqual(3);
    smsc.dropConnections();
    await waitFor(() => connector.state().state === 'disconnected');
    expect(connector.sessionStates()[0]!.liveTimers).toBe(0);
    const lastError = connector.state().lastError;
    clock.advance(20_000);
    // What closed the link (nothing, or the reset) stays the last error.
    expect(connector.state().lastError).toBe(lastError);
    expect(logs.filter((l) => String(l.error ?? '').includes('enquire_link'))).toEqual([]);
  });

  it('closes a link whose enquire_link goes unanswered, naming it', async () => {
    h = await startSmpp({ enquireLinkSeconds: 2, responseTimeoutSeconds: 5, reconnectMinMs: 60_000 });
    const { smsc, connector, clock } = h;
    await waitFor(() => connector.available());
    smsc.setStalled(true);
    clock.advance(2000);
    clock.advance(5000);
    await waitFor(() => connector.state().state === 'disconnected');
    expect(connector.state().lastError).toBe('no enquire_link_resp');
  });
});

describe('SMPP binds: transmitters and receivers, and stopping at any point', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is available only while a transmitting bind is bound', async () => {
    h = await startSmpp({ bindMode: 'transmitter+receiver', reconnectMinMs: 60_000, reconnectMaxMs: 60_000 });
    const { smsc, connector } = h;
    await waitFor(() => connector.sessionStates().every((s) => s.state === 'bound'));
    const transmitter = smsc.binds.findIndex((b) => b.command === 'bind_transmitter') + 1;
    smsc.dropSession(transmitter);
    await waitFor(() => !connector.available());
    expect(connector.state().state).toBe('disconnected');
    expect(connector.sessionStates().find((s) => s.role === 'receiver')!.state).toBe('bound');
  });

  it.each(['binding', 'bound'] as const)('stops while %s, leaving no timer behind', async (at) => {
    h = await startSmpp({}, {}, (smsc) => smsc.setSilentBinds(at === 'binding'));
    const { connector, clock } = h;
    await waitFor(() => connector.state().state === at);
    await connector.stop();
    expect(connector.sessionStates()).toEqual([{ role: 'transceiver', state: 'stopped', liveTimers: 0 }]);
    expect(clock.timers).toBe(0);
  });
});

describe('SMPP reconnects: binds that do not last back off', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Moves the clock 100 ms at a time until the session starts connecting again; the time that took. */
  const untilReconnect = async (session: number): Promise<number> => {
    const { connector, clock } = h!;
    await waitFor(() => connector.sessionStates()[session]!.state === 'disconnected');
    let waited = 0;
    while (connector.sessionStates()[session]!.state === 'disconnected') {
      clock.advance(100);
      waited += 100;
    }
    return waited;
  };

  it('waits longer after each bind the SMSC closes at once, and says why in the last error', async () => {
    // An SMSC that takes one bind per system_type (opensmppbox) against two sessions: the second flaps.
    h = await startSmpp({ sessions: 2, reconnectMinMs: 500, reconnectMaxMs: 30_000 }, { oneBindPerSystemType: true });
    const { smsc, connector } = h;
    await waitFor(() => smsc.boundSessions === 1 && smsc.binds.length === 2);
    const second = connector.sessionStates().findIndex((s) => s.state !== 'bound');
    const gaps: number[] = [];
    for (let i = 0; i < 6; i++) gaps.push(await untilReconnect(second));
    expect(gaps).toEqual([500, 1000, 2000, 4000, 8000, 16_000]);
    expect(connector.state()).toMatchObject({ state: 'bound', available: true });
    expect(connector.state().lastError).toMatch(
      /^session 2 closed 0(\.\d)? s after its bind; binding again in 16 s \(the wait doubles while binds do not last/,
    );
  });

  it('starts the back-off again once a bind has lasted a minute', async () => {
    h = await startSmpp({ reconnectMinMs: 500, reconnectMaxMs: 30_000 }, { oneBindPerSystemType: true });
    const { smsc, connector, clock } = h;
    await waitFor(() => connector.available());
    for (const expected of [500, 1000]) {
      smsc.dropConnections();
      expect(await untilReconnect(0)).toBe(expected);
      await waitFor(() => connector.available());
    }
    clock.advance(60_000);
    smsc.dropConnections();
    expect(await untilReconnect(0)).toBe(500);
  });
});

describe('SMPP requests: each waits for its response up to the response timeout', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('fails a submit_sm unanswered at its timeout, not before, each on its own deadline, on one timer', async () => {
    // Spans far longer than a busy machine takes between two steps (the test clock's timers also fire in real time),
    // and the whole timeline within the minute after which the connector's own bind timer fires.
    h = await startSmpp({ responseTimeoutSeconds: 30, enquireLinkSeconds: 600, reconnectMinMs: 60_000 });
    const { smsc, connector, clock } = h;
    await waitFor(() => connector.available());
    // Every timer armed on the test clock (the connection's, the simulator's), and the connection's own.
    const idle = clock.timers;
    const linkTimers = (): number => connector.sessionStates()[0]!.liveTimers;
    const linkIdle = linkTimers();
    smsc.setStalled(true);
    const settled: string[] = [];
    const submit = (id: string): Promise<unknown> =>
      connector.submit(sms('79161234567', `text ${id}`, id)).then((outcome) => {
        settled.push(id);
        return outcome;
      });
    const first = submit('first');
    // Received, and waiting for its response: the connection's timer for responses is armed.
    await waitFor(() => smsc.stalledSubmits === 1);
    expect(clock.timers).toBe(idle + 1);
    expect(linkTimers()).toBe(linkIdle + 1);
    clock.advance(12_000);
    const second = submit('second');
    await waitFor(() => smsc.stalledSubmits === 2);
    // Two requests waiting, one timer.
    expect(clock.timers).toBe(idle + 1);
    // Checked a second before each deadline: a timer the clock passes not yet is due that much later in real time too,
    // and a busy machine can let a millisecond pass between moving the clock and looking.
    clock.advance(17_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);
    clock.advance(1_000);
    expect(await first).toMatchObject({
      kind: 'transient',
      reason: expect.stringContaining('no response within 30 s'),
    });
    expect(settled).toEqual(['first']);
    // The second's deadline is its own: 30 s after it was sent, 12 s after the first's.
    clock.advance(11_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual(['first']);
    clock.advance(1_000);
    expect(await second).toMatchObject({ reason: expect.stringContaining('no response within 30 s') });
    // Nothing waits: the timer for responses is not armed again.
    expect(clock.timers).toBe(idle);
    expect(linkTimers()).toBe(linkIdle);
  });
});
