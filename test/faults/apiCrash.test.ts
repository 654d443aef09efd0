import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { submissionsByText, waitAllDelivered } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startLoad } from '../helpers/load.js';
import { waitFor } from '../helpers/waitFor.js';

// Killing a process that shares a database with the test needs a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');
const BATCH = 200;

describe.runIf(ON_POSTGRES)('an api process killed during a burst of batches', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('keeps every answered message, stores no batch in part, and the stored ones are all delivered once', async () => {
    cluster = await startCluster({ delayMs: 20 });
    const api = await cluster.start('api');
    const account = await cluster.createAccount('Cluster');
    const load = startLoad(() => api.url!, account.traffic, {
      tag: 'burst',
      batchSize: BATCH,
      concurrency: 4,
      senderName: 'Cluster',
    });
    await waitFor(() => load.accepted.length >= 4000, { timeoutMs: 60_000 });
    api.run.child.kill('SIGKILL');
    await api.run.exited();
    await load.stop();

    const db = cluster.testDb.db;
    const answered = new Set(load.accepted);
    const stored = await db.query<{ id: string; content: string }>(
      `SELECT id::text AS id, content #>> '{}' AS content FROM messages WHERE account_id = $1`,
      [account.id],
    );
    const storedIds = new Set(stored.map((r) => r.id));
    expect([...answered].filter((id) => !storedIds.has(id))).toEqual([]);
    // Every batch is in the database whole or not at all.
    const perBatch = new Map<string, number>();
    for (const row of stored) {
      const batch = row.content.slice(0, row.content.lastIndexOf('-'));
      perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
    }
    expect([...perBatch].filter(([, n]) => n !== BATCH)).toEqual([]);
    // Requests cut by the kill got no answer; a batch committed just before the kill may be stored unanswered
    // (a client retries it with an Idempotency-Key to learn its uuids).
    const unanswered = stored.length - answered.size;
    expect(load.outcomes.get('network') ?? 0).toBeGreaterThan(0);
    expect(unanswered).toBeGreaterThanOrEqual(0);
    expect(unanswered).toBeLessThanOrEqual(4 * BATCH);
    process.stdout.write(
      `api crash: ${answered.size} answered, ${stored.length} stored in ${perBatch.size} whole batches, ` +
        `${unanswered} stored but unanswered, ${load.outcomes.get('network')} requests cut\n`,
    );

    // A new api process takes over at once; a worker sends everything stored, each message once.
    const next = await cluster.start('api');
    const health = await call(next.url!, 'GET', '/readyz');
    expect(health.status).toBe(200);
    await cluster.start('worker');
    await waitAllDelivered(db, account.id, stored.length, 60_000);
    const submitted = submissionsByText(cluster.simulators.smsc, 'burst ');
    expect(submitted.size).toBe(stored.length);
    expect([...submitted.values()].filter((n) => n > 1)).toEqual([]);
  }, 150_000);
});
