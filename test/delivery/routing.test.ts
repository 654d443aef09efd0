import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { ConfigFile } from '../../src/config/configFile.js';
import type { SmppConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { testSmppConnector } from '../factories/connectors.js';
import type { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import { type Herald, startHerald } from '../../src/main.js';
import { SmscSimulator } from '../../src/simulators/smscSimulator.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { untilWritten } from '../helpers/signals.js';
import { ADMIN_TOKEN, sendVia } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { messageRows } from '../helpers/messageRows.js';

// Spans the test crosses by moving the clock, too long to fall due in real time during the file: submissions sent
// at once (30 s) and the first enquire_link's answer (10 + 30 s) time out in one move, before the retry they set
// (1 s later) falls due and within the dispatcher's 60 s lease. Reconnecting stays short and in real time.
const smppConnector = (id: string, port: number): SmppConnectorConfig =>
  testSmppConnector(id, port, { enquireLinkSeconds: 10, responseTimeoutSeconds: 30 });

describe.each(ENGINES)('routing fallback and a stalled SMSC (%s)', (engine) => {
  let testDb: TestDb;
  let herald: Herald;
  let token: string;
  // It stands still: the stalled SMSC's timeouts and the messages' retries come when the test moves it.
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const primary = new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 10 });
  const backup = new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 10 });

  const send = (texts: string[]): Promise<string[]> =>
    sendVia(
      { call: (method, path, options) => call(herald.url!, method, path, options) },
      token,
      texts.map((content, i) => ({
        channelType: 'SMS',
        senderName: 'Shop',
        destination: `7916777${String(i).padStart(3, '0')}0`,
        content,
      })),
    );
  const statuses = async (ids: string[]) =>
    (
      await testDb.db.query<{ status: string }>(`SELECT status FROM ${messageRows()} WHERE id = ANY($1::uuid[])`, [ids])
    ).map((r) => r.status);

  beforeAll(async () => {
    await primary.start();
    await backup.start();
    testDb = await openTestDb(engine);
    const configFile: ConfigFile = {
      connectors: [smppConnector('primary', primary.port), smppConnector('backup', backup.port)],
      routes: [{ channel: 'SMS', prefixes: [], connectors: ['primary', 'backup'] }],
      tariffs: [],
    };
    herald = await startHerald({
      config: loadConfig({
        HERALD_PORT: '0',
        HERALD_DEMO: 'false',
        HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
        HERALD_SIMULATORS: 'off',
        HERALD_LOG_LEVEL: 'silent',
      }),
      role: 'all',
      clock,
      db: testDb.db,
      log: pino({ level: 'silent' }),
      configFile,
      submitter: { pollMs: 50 },
    });
    for (const c of herald.connectors) await (c as SmppConnector).waitBound(5000);
    const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
    const account = await call(herald.url!, 'POST', '/admin/v1/accounts', { ...admin, body: { name: 'routing' } });
    await call(herald.url!, 'POST', `/admin/v1/accounts/${account.body.id}/sender-names`, {
      ...admin,
      body: { channelType: 'SMS', name: 'Shop' },
    });
    token = account.body.tokens.traffic;
  });
  afterAll(async () => {
    await herald?.close();
    await testDb?.drop();
    await primary.stop();
    await backup.stop();
  });

  it('sends through the first connector of the route while it is up', async () => {
    const ids = await send(['first a', 'first b']);
    await untilWritten(herald, async () => (await statuses(ids)).every((s) => s === 'delivered'));
    expect(primary.submissions.map((s) => s.text)).toEqual(expect.arrayContaining(['first a', 'first b']));
    expect(backup.submissions).toHaveLength(0);
  });

  it('falls back to the next connector when the first is down, and loses nothing', async () => {
    primary.setDown(true);
    await waitFor(() => !herald.connectors.find((c) => c.id === 'primary')!.available());
    const ids = await send(['fallback a', 'fallback b', 'fallback c']);
    await untilWritten(herald, async () => (await statuses(ids)).every((s) => s === 'delivered'));
    expect(backup.submissions.map((s) => s.text)).toEqual(
      expect.arrayContaining(['fallback a', 'fallback b', 'fallback c']),
    );
    primary.setDown(false);
    await (herald.connectors.find((c) => c.id === 'primary') as SmppConnector).waitBound(5000);
  });

  it('times out a stalled SMSC, reconnects, and sends the waiting messages through the route', async () => {
    const connector = herald.connectors.find((c) => c.id === 'primary') as SmppConnector;
    backup.setDown(true);
    primary.setStalled(true);
    const ids = await send(['stalled a', 'stalled b']);
    await waitFor(() => connector.state().inFlight === 2);
    const binds = primary.binds.length;
    // The enquire_link goes out, then no answer to it or to the submissions within the response timeout: the
    // session is closed, the messages wait (1 s, by the clock) and are retried.
    clock.advance(10_000);
    expect(connector.state().lastError).not.toBe('no enquire_link_resp');
    clock.advance(30_000);
    expect(connector.state().lastError).toBe('no enquire_link_resp');
    await waitFor(() => connector.state().inFlight === 0);
    expect(await statuses(ids)).toEqual(['sending', 'sending']);
    primary.setStalled(false);
    backup.setDown(false);
    // Bound again on a new connection (the stalled SMSC took its bind), and the backup too: then their retry falls due.
    await waitFor(() => primary.binds.length > binds && connector.available());
    expect(await (herald.connectors.find((c) => c.id === 'backup') as SmppConnector).waitBound(20_000)).toBe(true);
    clock.advance(1000);
    await untilWritten(herald, async () => (await statuses(ids)).every((s) => s === 'delivered'), {
      timeoutMs: 20_000,
    });
    expect(primary.submissions.map((s) => s.text)).toEqual(expect.arrayContaining(['stalled a', 'stalled b']));
  });
});
