import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { submissionsByText, waitAllDelivered } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startLoad } from '../helpers/load.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';

// Separate processes share one database only on a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');

describe.runIf(ON_POSTGRES)('two api and two worker processes on one PostgreSQL', () => {
  let cluster: Cluster | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await cluster?.close();
    await receiver?.stop();
  });

  it('take traffic on either api, send each message once through both workers, and call back once each', async () => {
    receiver = await new Receiver().start();
    cluster = await startCluster({ delayMs: 20, env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' } });
    const apis = await Promise.all([cluster.start('api'), cluster.start('api')]);
    await Promise.all([cluster.start('worker'), cluster.start('worker')]);
    const account = await cluster.createAccount('Cluster');
    const loads = apis.map((api, i) =>
      startLoad(() => api.url!, account.traffic, {
        tag: `scale${i}`,
        batchSize: 200,
        concurrency: 2,
        senderName: 'Cluster',
        callbackUrl: receiver!.url,
      }),
    );
    await waitFor(() => loads.every((load) => load.accepted.length >= 2000), { timeoutMs: 60_000 });
    await Promise.all(loads.map((load) => load.stop()));
    const accepted = loads.flatMap((load) => load.accepted);
    for (const load of loads) expect([...load.outcomes.keys()]).toEqual([200]);

    // What one api stored, the other shows at once.
    const seen = await call(apis[1]!.url!, 'GET', `/api/v1/message/${loads[0]!.accepted[0]}`, {
      token: account.traffic,
    });
    expect(seen.status).toBe(200);

    const db = cluster.testDb.db;
    await waitAllDelivered(db, account.id, accepted.length, 90_000);
    const submitted = submissionsByText(cluster.simulators.smsc, 'scale');
    const sessions = new Set(
      cluster.simulators.smsc.submissions.filter((s) => s.text.startsWith('scale')).map((s) => s.session),
    );
    expect(submitted.size).toBe(accepted.length);
    expect([...submitted.values()].filter((n) => n > 1)).toEqual([]);
    expect(sessions.size).toBe(2);

    const delivered = (): string[] =>
      receiver!
        .events()
        .filter((e) => e.callback_event === 'delivered')
        .map((e) => e.message_uuid);
    await waitFor(() => new Set(delivered()).size === accepted.length, {
      timeoutMs: 60_000,
      describe: () => `${new Set(delivered()).size} of ${accepted.length}`,
    });
    expect(delivered()).toHaveLength(accepted.length);
    process.stdout.write(
      `scale-out: ${accepted.length} messages through 2 api and 2 worker processes, each sent and called back once\n`,
    );
  }, 180_000);
});
