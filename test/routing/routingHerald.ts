import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import type { ConfigFile } from '../../src/config/configFile.js';
import type { ProviderConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { testSmppConnector } from '../factories/connectors.js';
import type { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import { type Herald, startHerald } from '../../src/main.js';
import { SmscSimulator } from '../../src/simulators/smscSimulator.js';
import { TestClock } from '../helpers/clock.js';
import { type Engine, openTestDb, type TestDb } from '../helpers/engines.js';
import { call, type CallOptions, type Reply } from '../helpers/http.js';
import { ADMIN_TOKEN, createAccountVia, sendVia, type TestAccount } from '../helpers/testHerald.js';

/*
 * Herald (role all) for the routing tests: two SMS carriers `a` and `b` (SMSC simulators on port 0), an SMS
 * connector `dead` whose carrier never answers (a connector that is never up), and a VIBER connector `vb` that no
 * test sends through (a connector of another channel). The config file's routes send all SMS by `a` unless told.
 */

const viber: ProviderConnectorConfig = {
  id: 'vb',
  type: 'viber',
  baseUrl: 'http://127.0.0.1:1',
  apiKey: 'key',
  webhookSecret: 'secret',
  timeoutSeconds: 2,
  window: 10,
  mps: 100,
  breakerFailures: 3,
  breakerOpenSeconds: 1,
};

export type ConfigRoutes = ConfigFile['routes'];

export const GENERAL_ROUTE: ConfigRoutes = [{ channel: 'SMS', prefixes: [], connectors: ['a'] }];

export interface RoutingHerald {
  readonly herald: Herald;
  readonly testDb: TestDb;
  readonly clock: TestClock;
  /** The carriers of connectors `a` and `b`. */
  readonly carriers: { readonly a: SmscSimulator; readonly b: SmscSimulator };
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  createAccount(senderName?: string): Promise<TestAccount>;
  send(token: string, messages: readonly Record<string, unknown>[]): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Starts the carriers and Herald on a fresh database of `engine` (or on `on`, left open by close(), for a test that
 * starts Herald twice on one database).
 */
export async function startRoutingHerald(
  engine: Engine,
  options: { routes?: ConfigRoutes; env?: Record<string, string>; on?: TestDb } = {},
): Promise<RoutingHerald> {
  const a = new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 10 });
  const b = new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 10 });
  await a.start();
  await b.start();
  const testDb = options.on ?? (await openTestDb(engine));
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const configFile: ConfigFile = {
    // Port 1 on the loopback refuses connections: `dead` is never bound.
    connectors: [testSmppConnector('a', a.port), testSmppConnector('b', b.port), testSmppConnector('dead', 1), viber],
    routes: options.routes ?? GENERAL_ROUTE,
    tariffs: [],
  };
  const herald = await startHerald({
    config: loadConfig({
      HERALD_PORT: '0',
      HERALD_DEMO: 'false',
      HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
      HERALD_SIMULATORS: 'off',
      HERALD_LOG_LEVEL: 'silent',
      HERALD_PUMPING_MODE: 'off',
      ...options.env,
    }),
    role: 'all',
    clock,
    db: testDb.db,
    log: pino({ level: 'silent' }),
    configFile,
    submitter: { pollMs: 50 },
    startJobs: false,
  });
  for (const id of ['a', 'b']) {
    const connector = herald.connectors.find((c) => c.id === id) as SmppConnector;
    if (!(await connector.waitBound(20_000))) throw new Error(`${id} did not bind within 20 s`);
  }
  const url = herald.url!;
  const h: RoutingHerald = {
    herald,
    testDb,
    clock,
    carriers: { a, b },
    call: (method, path, callOptions) => call(url, method, path, callOptions),
    admin: (method, path, body) => call(url, method, path, { auth: `Bearer ${ADMIN_TOKEN}`, body }),
    createAccount: (senderName = 'Shop') =>
      createAccountVia({ url, admin: h.admin }, () => clock.now(), { senderNames: [['SMS', senderName]] }),
    send: (token, messages) => sendVia(h, token, messages),
    async close() {
      await herald.close();
      if (!options.on) await testDb.drop();
      await a.stop();
      await b.stop();
    },
  };
  return h;
}
