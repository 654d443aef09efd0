import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedSimulators, type EmbeddedSimulators } from '../../src/simulators/embeddedSimulators.js';
import { openTestDb, type TestDb } from './engines.js';
import { call, type CallOptions, type Reply } from './http.js';
import { spawnHerald, type Spawned } from './process.js';
import { ADMIN_TOKEN, sendVia, type TestAccount } from './testHerald.js';

export interface ClusterProcess {
  readonly run: Spawned;
  readonly url: string | undefined;
}

/**
 * Herald as separate processes (`herald serve --role ...`) on one PostgreSQL schema, with carrier simulators
 * owned by the test and a config file pointing at them: for crash and scale-out tests.
 */
export interface Cluster {
  readonly testDb: TestDb;
  readonly simulators: EmbeddedSimulators;
  start(role: 'api' | 'worker' | 'all', env?: Record<string, string>): Promise<ClusterProcess>;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  /** Sends messages through an api process, expects every one taken, and returns their ids in order. */
  send(token: string, messages: readonly Record<string, unknown>[]): Promise<string[]>;
  createAccount(senderName: string): Promise<TestAccount>;
  close(): Promise<void>;
}

export async function startCluster(options: {
  delayMs: number;
  env?: Record<string, string>;
  /** A PostgreSQL server other than TEST_DATABASE_URL's (one the test may restart). */
  databaseUrl?: string;
  /** Submissions per second each connector may start (the connectors' flow control). */
  mps?: number;
  /**
   * The processes' DATABASE_URL for the test's database (a pooler in front of it); by default the server's URL
   * with the schema on the search path.
   */
  heraldDatabaseUrl?: (testDb: TestDb) => Promise<string>;
}): Promise<Cluster> {
  const testDb = await openTestDb('postgres', options.databaseUrl ? { url: options.databaseUrl } : {});
  const simulators = await startEmbeddedSimulators({
    delayMs: options.delayMs,
    window: 100,
    ...(options.mps ? { mps: options.mps } : {}),
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-cluster-'));
  const configPath = path.join(dir, 'herald.json');
  writeFileSync(
    configPath,
    JSON.stringify({ connectors: simulators.configFile.connectors, routes: simulators.configFile.routes }),
  );
  const url = new URL(testDb.url!);
  url.searchParams.set('options', `-c search_path=${testDb.schema}`);
  const direct = url.toString();
  const databaseUrl = options.heraldDatabaseUrl ? await options.heraldDatabaseUrl(testDb) : direct;
  const processes: Spawned[] = [];
  let apiUrl: string | undefined;

  const cluster: Cluster = {
    testDb,
    simulators,
    async start(role, env = {}) {
      const run = spawnHerald(['serve', '--role', role], {
        DATABASE_URL: databaseUrl,
        // LISTEN needs a session of its own: the direct URL, never a transaction pooler's.
        HERALD_LISTEN_DATABASE_URL: direct,
        HERALD_CONFIG: configPath,
        HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
        HERALD_PORT: '0',
        HERALD_LOG_LEVEL: 'info',
        // These tests send runs to consecutive numbers of one range: pumping detection would hold them (its own
        // tests switch it on).
        HERALD_PUMPING_MODE: 'off',
        ...options.env,
        ...env,
      });
      processes.push(run);
      let processUrl: string | undefined;
      if (role !== 'worker') {
        processUrl = (await run.waitFor(/listening at (http:\/\/[^"\s]+)/))[1]!;
        apiUrl ??= processUrl;
        simulators.connectWebhooks(apiUrl);
      }
      if (role !== 'api') await run.waitFor(/SMPP session bound/);
      return { run, url: processUrl };
    },
    call(method, p, callOptions) {
      if (!apiUrl) throw new Error('no api process started');
      return call(apiUrl, method, p, callOptions);
    },
    send: (token, messages) => sendVia(cluster, token, messages),
    async createAccount(senderName) {
      const created = await cluster.call('POST', '/admin/v1/accounts', {
        auth: `Bearer ${ADMIN_TOKEN}`,
        body: { name: 'cluster' },
      });
      await cluster.call('POST', `/admin/v1/accounts/${created.body.id}/sender-names`, {
        auth: `Bearer ${ADMIN_TOKEN}`,
        body: { channelType: 'SMS', name: senderName },
      });
      // As createAccountVia: many messages to the same numbers, so the flood filter is off.
      await cluster.call('PATCH', `/admin/v1/accounts/${created.body.id}`, {
        auth: `Bearer ${ADMIN_TOKEN}`,
        body: { flood: null },
      });
      return { id: created.body.id, traffic: created.body.tokens.traffic, system: created.body.tokens.system };
    },
    async close() {
      for (const run of processes) if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await Promise.all(processes.map((run) => run.exited()));
      await simulators.stop();
      await testDb.drop();
    },
  };
  return cluster;
}
