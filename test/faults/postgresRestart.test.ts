import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { submissionsByText, waitAllDelivered } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startLoad } from '../helpers/load.js';
import { type PostgresServer, startPostgres } from '../ha/servers.js';
import { waitFor } from '../helpers/waitFor.js';

// A server restart needs a PostgreSQL server (a private one: the shared one stays up for the other tests).
const ON_POSTGRES = ENGINES.includes('postgres');

describe.runIf(ON_POSTGRES)('PostgreSQL restarted under load', () => {
  let server: PostgresServer | undefined;
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close().catch(() => undefined);
    server?.destroy();
    cluster = undefined;
    server = undefined;
  });

  it('answers 503 5031 while Postgres is away, reconnects by itself, loses or repeats nothing accepted', async () => {
    server = await startPostgres();
    cluster = await startCluster({ delayMs: 20, databaseUrl: server.url });
    const api = await cluster.start('api');
    const worker = await cluster.start('worker');
    const account = await cluster.createAccount('Cluster');
    const load = startLoad(() => api.url!, account.traffic, {
      tag: 'restart',
      batchSize: 100,
      concurrency: 2,
      senderName: 'Cluster',
    });
    await waitFor(() => load.accepted.length >= 2000, { timeoutMs: 60_000 });

    server.stop();
    const during = await call(api.url!, 'POST', '/api/v1/message', {
      token: account.traffic,
      body: [{ channelType: 'SMS', senderName: 'Cluster', destination: '79161234560', content: 'while down' }],
    });
    expect(during.status).toBe(503);
    expect(during.body.error.code).toBe(5031);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
    const ready = await call(api.url!, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ error: { code: 5033 }, checks: { database: { ok: false } } });
    // Metrics still answer, saying the database is away.
    const metrics = await call(api.url!, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^herald_database_up 0$/m);
    // The worker meets the outage too (its submitter, receipt writer and callback sender share its pool), and the
    // load keeps being refused: the outage is seen everywhere before the server comes back. A submitter with
    // nothing to claim sleeps until the next due message: it meets the outage reading when that is.
    await worker.run.waitFor(/claiming due messages failed|reading the next due message failed/);
    const refusedBefore = load.refusals.length;
    await waitFor(() => load.refusals.length >= refusedBefore + 10);
    const acceptedWhileDown = load.accepted.length;
    server.start();

    // Nobody restarts Herald: the same processes take requests again and finish the work.
    await waitFor(() => load.accepted.length >= acceptedWhileDown + 1000, { timeoutMs: 30_000 });
    await load.stop();
    expect((await call(api.url!, 'GET', '/readyz')).status).toBe(200);
    const db = cluster.testDb.db;
    await waitAllDelivered(db, account.id, load.accepted.length, 60_000);

    // The same processes, not replacements.
    expect(api.run.child.exitCode).toBeNull();
    expect(worker.run.child.exitCode).toBeNull();
    // Every refusal was a 503 in the error format, never a 500.
    expect([...load.outcomes.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(load.outcomes.get(503) ?? 0).toBeGreaterThan(0);
    for (const refusal of load.refusals) {
      expect(refusal.body.error.code).toBe(5031);
      expect(refusal.retryAfter).not.toBeNull();
    }
    // Each accepted message is stored, none other, and each reached the SMSC exactly once.
    const stored = await db.query<{ id: string }>(`SELECT id::text AS id FROM messages WHERE account_id = $1`, [
      account.id,
    ]);
    expect(new Set(stored.map((r) => r.id))).toEqual(new Set(load.accepted));
    const submitted = submissionsByText(cluster.simulators.smsc, 'restart ');
    expect(submitted.size).toBe(load.accepted.length);
    expect([...submitted.values()].filter((n) => n > 1)).toEqual([]);
    process.stdout.write(
      `postgres restart: ${load.accepted.length} accepted, ` +
        `${load.outcomes.get(503)} batches answered 503 5031 while down, all delivered once\n`,
    );
  }, 180_000);
});
