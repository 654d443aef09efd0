import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { type SmppHarness, startSmpp } from './smppHarness.js';

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
