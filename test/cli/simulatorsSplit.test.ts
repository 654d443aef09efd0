import { afterAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { spawnHerald, type Spawned } from '../helpers/process.js';
import { ADMIN_TOKEN, createAccountVia, sendVia } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/** Processes migrating and binding on a busy 2-core machine: room for it. */
const PROCESS_TIMEOUT_MS = 120_000;

// Separate processes share one database only on a PostgreSQL server.
describe.runIf(ENGINES.includes('postgres'))('the simulators with separate api and worker processes', () => {
  let testDb: TestDb | undefined;
  const runs: Spawned[] = [];
  afterAll(async () => {
    for (const run of runs) run.child.kill('SIGTERM');
    await Promise.all(runs.map((run) => run.exited()));
    await testDb?.drop();
  });

  it(
    "report a VK message's delivery and read back to Herald, and take their controls on the worker",
    async () => {
      testDb = await openTestDb('postgres');
      const url = new URL(testDb.url!);
      url.searchParams.set('options', `-c search_path=${testDb.schema}`);
      const env = {
        DATABASE_URL: url.toString(),
        HERALD_SIMULATORS: 'on',
        HERALD_SIM_DELAY_MS: '20',
        HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
        HERALD_DEMO: 'false',
        HERALD_PORT: '0',
        HERALD_LOG_LEVEL: 'info',
      };
      const api = spawnHerald(['serve', '--role', 'api'], env);
      runs.push(api);
      const apiUrl = (await api.waitFor(/listening at (http:\/\/[^"\s]+)/))[1]!;
      const worker = spawnHerald(['serve', '--role', 'worker'], env);
      runs.push(worker);
      const workerUrl = (await worker.waitFor(/listening at (http:\/\/[^"\s]+)/))[1]!;
      await worker.waitFor(/SMPP session bound/);

      const client = {
        url: apiUrl,
        call: (method: string, p: string, options?: Parameters<typeof call>[3]) => call(apiUrl, method, p, options),
        admin: (method: string, p: string, body?: unknown) =>
          call(apiUrl, method, p, { auth: `Bearer ${ADMIN_TOKEN}`, body }),
      };
      const account = await createAccountVia(client, () => new Date());
      const [id] = await sendVia(client, account.traffic, [message('VK', { destination: '79161230001' })]);
      const seen = async () => (await client.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body;
      await waitFor(async () => (await seen()).readStatus === 'read', {
        timeoutMs: 30_000,
        describe: async () => JSON.stringify(await seen()),
      });
      expect(await seen()).toMatchObject({ status: 'delivered', readStatus: 'read' });
      // The controls are where the simulators are: on the worker's port.
      const inbound = await call(workerUrl, 'POST', '/sim/v1/inbound', {
        body: { channelType: 'WHATSAPP', from: '79161230002', senderName: SENDER, text: 'hi' },
      });
      expect(inbound.status).toBe(200);
      expect(worker.output()).toContain(`POST ${workerUrl}/sim/v1/inbound`);
      expect(api.output()).toContain('the simulators run in the worker processes');
    },
    PROCESS_TIMEOUT_MS,
  );
});
