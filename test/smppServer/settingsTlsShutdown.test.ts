import { readFileSync } from 'node:fs';
import path from 'node:path';
import smpp from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { receiptLimitsFor, type SmppServerOptions } from '../../src/smppServer/index.js';
import { ESME } from '../../src/smppServer/smppStatuses.js';
import { ENGINES, listeningPids } from '../helpers/engines.js';
import { keyIdOf, secretOf, startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { SmppTestClient } from './smppClient.js';

/** The connector tests' certificate for `smsc.test`, and its key. */
const fixture = (name: string): string => path.join(import.meta.dirname, '..', 'connectors', 'fixtures', name);
const CERT = fixture('smsc.cert.pem');
const KEY = fixture('smsc.key.pem');

/** The windows a test Herald's SMPP server was given, and its receipt POSTs. */
function windowsOf(t: TestHerald): Pick<SmppServerOptions, 'window' | 'deliverWindow' | 'receiptPosts'> {
  const { window, deliverWindow, receiptPosts } = t.herald.smppServer!.options;
  return { window, deliverWindow, receiptPosts };
}

describe('the SMPP server settings', () => {
  it.each([
    [{ HERALD_SMPP_TLS_CERT: CERT, HERALD_SMPP_PORT: '2775' }, 'HERALD_SMPP_TLS_KEY: is required with'],
    [{ HERALD_SMPP_TLS_KEY: KEY, HERALD_SMPP_PORT: '2775' }, 'HERALD_SMPP_TLS_CERT: is required with'],
    [{ HERALD_SMPP_TLS_CERT: CERT, HERALD_SMPP_TLS_KEY: KEY }, 'HERALD_SMPP_TLS_CERT: is set but HERALD_SMPP_PORT'],
    [
      { HERALD_SMPP_TLS_CERT: '/nonexistent.pem', HERALD_SMPP_TLS_KEY: KEY, HERALD_SMPP_PORT: '2775' },
      'HERALD_SMPP_TLS_CERT: cannot be read',
    ],
    [{ HERALD_SMPP_PORT: 'smpp' }, 'HERALD_SMPP_PORT'],
    [{ HERALD_SMPP_WINDOW: '0' }, 'HERALD_SMPP_WINDOW'],
    [{ HERALD_SMPP_WINDOW: 'wide' }, 'HERALD_SMPP_WINDOW'],
  ])('refuses %j at start-up', (env, message) => {
    expect(() => loadConfig({ HERALD_DEMO: 'false', ...env })).toThrow(message);
  });

  it('is off without HERALD_SMPP_PORT', () => {
    expect(loadConfig({ HERALD_DEMO: 'false' }).smppPort).toBeUndefined();
  });

  it("gives the receipts a bind's window, and an account the receipt POSTs that keep such windows full", () => {
    // The default window and narrower ones: 100 deliver_sm a bind, 16 POSTs an account, 64 a process.
    for (const window of [1, 10, 100])
      expect(receiptLimitsFor(window)).toEqual({ deliverWindow: 100, receiptPosts: { process: 64, account: 16 } });
    // Wider: 16 POSTs an account for each 100 places, a process four accounts' worth...
    expect(receiptLimitsFor(101)).toEqual({ deliverWindow: 101, receiptPosts: { process: 68, account: 17 } });
    expect(receiptLimitsFor(1000)).toEqual({ deliverWindow: 1000, receiptPosts: { process: 640, account: 160 } });
    // ...up to a window of 1000: what a POST holds stays in memory until its client answers all of it.
    expect(receiptLimitsFor(10_000)).toEqual({ deliverWindow: 10_000, receiptPosts: { process: 640, account: 160 } });
  });
});

describe.each(ENGINES)('the SMPP server with HERALD_SMPP_WINDOW on %s', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_SMPP_PORT: '0', HERALD_SMPP_WINDOW: '3' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps the receipts to at least 100 deliver_sm a bind and 16 POSTs an account', () => {
    expect(windowsOf(t)).toEqual({
      window: 3,
      deliverWindow: 100,
      receiptPosts: { process: 64, account: 16 },
    });
  });

  it('keeps each bind to its window: one submit_sm more is refused ESME_RTHROTTLED (4290)', async () => {
    const a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const secret = secretOf(a.traffic);
    const { client, answer } = await SmppTestClient.bound(t.herald.smppServer!.port, keyIdOf(a.traffic), secret);
    try {
      expect(answer.command_status).toBe(ESME.ROK);
      // Ten at once: the first three are stored before any is answered, so some of the rest find the window full.
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          client.submit({
            source_addr: 'Herald',
            destination_addr: `7916123${String(i).padStart(4, '0')}`,
            short_message: 'Hi',
          }),
        ),
      );
      const statuses = answers.map((p) => p.command_status);
      expect(statuses.filter((s) => s === ESME.ROK).length).toBeGreaterThanOrEqual(3);
      expect(statuses).toContain(ESME.RTHROTTLED);
      expect(answers.find((p) => p.command_status === ESME.RTHROTTLED)!.herald_error_code).toBe(4290);
      const listed = await t.call('GET', '/api/v1/smpp-binds', { token: a.system });
      expect(listed.body.items[0]).toMatchObject({ window: { size: 3 } });
    } finally {
      await client.close();
    }
  });
});

describe.each(ENGINES)('the SMPP server with a window wider than the default on %s', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, { env: { HERALD_SMPP_PORT: '0', HERALD_SMPP_WINDOW: '250' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives the receipts the same window and an account the POSTs that keep it full', () => {
    expect(windowsOf(t)).toEqual({
      window: 250,
      deliverWindow: 250,
      receiptPosts: { process: 160, account: 40 },
    });
  });
});

describe.runIf(ENGINES.includes('postgres'))('the SMPP server on PostgreSQL', () => {
  it("listens on the process's one listening connection, as the worker's loops do", async () => {
    const t = await startTestHerald('postgres', { delivery: { delayMs: 20 }, env: { HERALD_SMPP_PORT: '0' } });
    try {
      expect(t.herald.smppServer).toBeDefined();
      expect(t.herald.submitter).toBeDefined();
      const listening = await listeningPids(t.testDb);
      expect(listening).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});

describe.each(ENGINES)('the SMPP server over TLS on %s', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: { HERALD_SMPP_PORT: '0', HERALD_SMPP_TLS_CERT: CERT, HERALD_SMPP_TLS_KEY: KEY },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('binds a client that checks the certificate', async () => {
    const a = await t.createAccount();
    const session = smpp.connect({
      host: '127.0.0.1',
      port: t.herald.smppServer!.port,
      tls: true,
      ca: readFileSync(CERT),
      servername: 'smsc.test',
    });
    session.on('error', () => undefined);
    await new Promise<void>((resolve) => session.once('secureConnect', () => resolve()));
    const secret = secretOf(a.traffic);
    const answer = await new Promise<smpp.PDU>((resolve) =>
      session.send(new smpp.PDU('bind_transceiver', { system_id: keyIdOf(a.traffic), password: secret }), resolve),
    );
    expect(answer.command_status).toBe(ESME.ROK);
    await new Promise<void>((resolve) => session.destroy(() => resolve()));
  });
});

describe.each(ENGINES)('the SMPP server shutting down on %s', (engine) => {
  it('unbinds each bind, waits for its unbind_resp, then closes', async () => {
    const t = await startTestHerald(engine, { env: { HERALD_SMPP_PORT: '0' }, smppServer: { unbindWaitMs: 10_000 } });
    const a = await t.createAccount();
    const secret = secretOf(a.traffic);
    const { client, answer } = await SmppTestClient.bound(t.herald.smppServer!.port, keyIdOf(a.traffic), secret);
    expect(answer.command_status).toBe(ESME.ROK);
    const started = Date.now();
    await t.close();
    // The unbind_resp ended the wait, not the 10 s allowed for it.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(client.requests.map((p) => p.command)).toEqual(['unbind']);
    await waitFor(() => client.closed);
  });
});
