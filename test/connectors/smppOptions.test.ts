import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/configFile.js';
import type { SmppConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { ConfigError } from '../../src/config/config.js';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { waitFor } from '../helpers/waitFor.js';
import { acceptedIds, type SmppHarness, sms, startSmpp } from './smppHarness.js';

const fixture = (name: string): string => path.join(import.meta.dirname, 'fixtures', name);
const LONG = 'x'.repeat(400);

describe('SMPP connector options (DESIGN 17)', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('binds as transmitters and receivers, and takes receipts on the receivers', async () => {
    h = await startSmpp({ bindMode: 'transmitter+receiver', sessions: 2 });
    const { smsc, connector, receipts } = h;
    await waitFor(() => connector.sessionStates().every((s) => s.state === 'bound'));
    expect(smsc.binds.map((b) => b.command).sort()).toEqual([
      'bind_receiver',
      'bind_receiver',
      'bind_transmitter',
      'bind_transmitter',
    ]);
    const ids = await Promise.all(
      [1, 2, 3, 4].map(async (i) => acceptedIds(await connector.submit(sms(`7916000000${i}`, `t${i}`)))),
    );
    await waitFor(() => receipts.length === 4);
    expect(receipts.map((r) => r.carrierId).sort()).toEqual(ids.flat().sort());
    // Submissions went over both transmitters.
    expect(new Set(smsc.submissions.map((s) => s.session)).size).toBe(2);
  });

  it('shares one window over several binds and matches receipts that arrive on a sibling bind', async () => {
    h = await startSmpp({ sessions: 3, window: 5 }, { delayMs: 60_000 });
    const { smsc, connector, receipts, clock } = h;
    await waitFor(() => connector.sessionStates().every((s) => s.state === 'bound'));
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => connector.submit(sms(`791600${String(i).padStart(3, '0')}1`, `m${i}`))),
    );
    expect(new Set(smsc.submissions.map((s) => s.session))).toEqual(new Set([1, 2, 3]));
    expect(connector.state()).toMatchObject({ window: 5, inFlight: 0 });
    // The binds that submitted are gone when the receipts are due: they come on the one left.
    smsc.dropSession(1);
    smsc.dropSession(2);
    clock.advance(60_000);
    await waitFor(() => receipts.length === 30);
    expect(receipts.map((r) => r.carrierId).sort()).toEqual(outcomes.flatMap(acceptedIds).sort());
  });

  it('speaks TLS, checking the SMSC against the configured CA', async () => {
    const tls = { key: readFileSync(fixture('smsc.key.pem')), cert: readFileSync(fixture('smsc.cert.pem')) };
    h = await startSmpp({ tls: { ca: fixture('smsc.cert.pem'), servername: 'smsc.test' } }, { tls });
    await waitFor(() => h!.connector.available());
    expect((await h.connector.submit(sms('79160000001', 'over TLS'))).kind).toBe('accepted');
    await h.close();
    // Without the CA the self-signed SMSC is refused.
    h = await startSmpp({ tls: true, reconnectMinMs: 60_000 }, { tls });
    await waitFor(() => h!.connector.state().lastError !== null);
    expect(h.connector.state()).toMatchObject({ available: false, lastError: expect.stringMatching(/certificate/) });
  });

  it('sets source and destination TON/NPI as configured', async () => {
    h = await startSmpp({ sourceTon: 1, sourceNpi: 1, destTon: 0, destNpi: 0 });
    await waitFor(() => h!.connector.available());
    await h.connector.submit(sms('79160000001', 'ton'));
    expect(h.smsc.submissions[0]).toMatchObject({ sourceTon: 1, sourceNpi: 1, destTon: 0, destNpi: 0 });
  });

  it('sends Latin-1 text with data_coding 3, other text as UCS-2, and refuses UCS-2 when told', async () => {
    h = await startSmpp({ dataCoding: 3 });
    await waitFor(() => h!.connector.available());
    await h.connector.submit(sms('79160000001', 'café {ok}'));
    await h.connector.submit(sms('79160000002', 'price 10€'));
    expect(h.smsc.messages().map((m) => [m.text, m.dataCoding])).toEqual([
      ['café {ok}', 3],
      ['price 10€', 8],
    ]);
    await h.close();
    h = await startSmpp({ ucs2: false });
    await waitFor(() => h!.connector.available());
    expect(await h.connector.submit(sms('79160000001', 'Привет'))).toMatchObject({
      kind: 'permanent',
      errorCode: SMPP_STATUS.RSUBMITFAIL,
    });
    expect((await h.connector.submit(sms('79160000001', 'Hello'))).kind).toBe('accepted');
  });

  it.each([
    ['udh8', 3, 'udh8'],
    ['udh16', 3, 'udh16'],
    ['sar', 3, 'sar'],
  ] as const)('sends long messages with %s', async (longMessages, parts, form) => {
    h = await startSmpp({ longMessages });
    await waitFor(() => h!.connector.available());
    expect(acceptedIds(await h.connector.submit(sms('79160000001', LONG)))).toHaveLength(parts);
    expect(h.smsc.messages()).toMatchObject([{ text: LONG, parts }]);
    expect(h.smsc.submissions.map((s) => s.concat?.form)).toEqual(Array(parts).fill(form));
  });

  it('sends a long message whole in message_payload', async () => {
    h = await startSmpp({ longMessages: 'payload' });
    await waitFor(() => h!.connector.available());
    expect(acceptedIds(await h.connector.submit(sms('79160000001', LONG)))).toHaveLength(1);
    expect(h.smsc.submissions).toMatchObject([{ payload: true, text: LONG, concat: null }]);
  });

  const base = { id: 'smsc-a', type: 'smpp', host: '10.0.0.5', port: 2775, systemId: 'herald', password: 'secret' };
  it('defaults systemType to herald and the options as documented', () => {
    const config = parseConfigFile({ connectors: [base] }).connectors[0] as SmppConnectorConfig;
    expect(config).toMatchObject({
      systemType: 'herald',
      bindMode: 'transceiver',
      sessions: 1,
      tls: false,
      destTon: 1,
      destNpi: 1,
      dataCoding: 0,
      ucs2: true,
      longMessages: 'udh8',
      receiptIds: 'as-is',
    });
    expect(config.sourceTon).toBeUndefined();
  });

  it.each([
    [{ bindMode: 'receiver' }, 'connectors[0].bindMode: must be one of "transceiver", "transmitter+receiver"'],
    [{ sessions: 17 }, 'connectors[0].sessions: must be <= 16'],
    [{ sessions: 0 }, 'connectors[0].sessions: must be >= 1'],
    [{ dataCoding: 1 }, 'connectors[0].dataCoding: must be one of 0, 3'],
    [{ longMessages: 'udh7' }, 'connectors[0].longMessages: must be one of "udh8", "udh16", "sar", "payload"'],
    [{ receiptIds: 'HEX' }, 'connectors[0].receiptIds: must be one of "as-is", "hex", "decimal"'],
    [{ tls: 'yes' }, 'connectors[0].tls: must be boolean'],
    [{ tls: { ca: '/nonexistent/ca.pem' } }, 'connectors[0].tls.ca: cannot read /nonexistent/ca.pem'],
    [{ tls: { cert: fixture('smsc.cert.pem') } }, 'connectors[0].tls: a client certificate needs both cert and key'],
    [{ tls: { ciphers: 'x' } }, 'connectors[0].tls.ciphers: unknown setting'],
    [{ sourceTon: 7 }, 'connectors[0].sourceTon: must be <= 6'],
    [{ ucs2: 'no' }, 'connectors[0].ucs2: must be boolean'],
    [{ reconnectMinMs: 5000, reconnectMaxMs: 1000 }, 'connectors[0].reconnectMinMs: 5000 exceeds reconnectMaxMs'],
    // DESIGN 12, 17: an empty system_type is refused by some SMSCs; leaving the key out gives the default.
    [{ systemType: '' }, 'connectors[0].systemType: must not be empty (connector smsc-a)'],
    [{ systemType: 'x'.repeat(13) }, 'connectors[0].systemType: must not have more than 12 characters'],
  ])('refuses %j at start-up, naming the setting', (extra, message) => {
    let error: unknown;
    try {
      parseConfigFile({ connectors: [{ ...base, ...extra }] }, 'herald.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`herald.json: ${message}`);
  });
});
