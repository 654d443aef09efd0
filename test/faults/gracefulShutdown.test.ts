import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { submissionsByText, waitAllDelivered } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { startLoad } from '../helpers/load.js';
import { waitFor } from '../helpers/waitFor.js';
import { messageLeasedSql } from '../../src/messages/claimSql.js';
import { messageRows } from '../helpers/messageRows.js';

// Signalling a process that shares a database with the test needs a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');

describe.runIf(ON_POSTGRES)('SIGTERM under load', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('stops accepting, answers what it took, requeues unsent messages, unbinds and exits in time', async () => {
    // A slow SMSC (500 submissions a second through a window of 100) keeps most claimed messages waiting for
    // the window when the signal comes.
    cluster = await startCluster({ delayMs: 20, mps: 500, env: { HERALD_SHUTDOWN_SECONDS: '20' } });
    const api = await cluster.start('api');
    const worker = await cluster.start('worker');
    const account = await cluster.createAccount('Cluster');
    const load = startLoad(() => api.url!, account.traffic, {
      tag: 'term',
      batchSize: 50,
      concurrency: 2,
      senderName: 'Cluster',
    });
    const smsc = cluster.simulators.smsc;
    await waitFor(() => load.accepted.length >= 2000 && smsc.submitCount >= 500, { timeoutMs: 60_000 });

    const signalled = Date.now();
    api.run.child.kill('SIGTERM');
    worker.run.child.kill('SIGTERM');
    const [apiCode, workerCode] = await Promise.all([api.run.exited(), worker.run.exited()]);
    const tookMs = Date.now() - signalled;
    await load.stop();
    expect(apiCode).toBe(0);
    expect(workerCode).toBe(0);
    expect(tookMs).toBeLessThan(20_000);
    expect(smsc.unbinds.length).toBeGreaterThanOrEqual(1);
    expect(worker.run.output()).toMatch(/shutting down/);

    // Every answered message is stored; none is left leased to the stopped worker: each is sent, or due now.
    const db = cluster.testDb.db;
    const stored = await db.query<{ id: string; status: string; leased: boolean }>(
      `SELECT id::text AS id, status, ${messageLeasedSql('messages', 'now()')} AS leased FROM ${messageRows()}
       WHERE account_id = $1`,
      [account.id],
    );
    const storedIds = new Set(stored.map((r) => r.id));
    expect(load.accepted.filter((id) => !storedIds.has(id))).toEqual([]);
    expect(stored.filter((r) => r.leased)).toEqual([]);
    const waiting = stored.filter((r) => r.status === 'sending').length;
    expect(waiting).toBeGreaterThan(0);
    process.stdout.write(
      `graceful shutdown: exited in ${tookMs} ms; ${stored.length} stored, ${stored.length - waiting} sent, ` +
        `${waiting} back in the queue\n`,
    );

    // A new worker (with the default 60 s lease) sends the rest at once, each message once.
    await cluster.start('worker');
    await waitAllDelivered(db, account.id, stored.length, 60_000);
    const submitted = submissionsByText(smsc, 'term ');
    expect(submitted.size).toBe(stored.length);
    expect([...submitted.values()].filter((n) => n > 1)).toEqual([]);
  }, 150_000);
});
