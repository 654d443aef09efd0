import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/waitFor.js';
import { messageRows } from '../helpers/messageRows.js';

// Killing a process that shares a database with the test needs a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');
const CASCADES = 1000;

describe.runIf(ON_POSTGRES)('a worker killed while cascades move on', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('creates every next step exactly once: the receipt and the step it leads to commit together', async () => {
    cluster = await startCluster({ delayMs: 20, env: { HERALD_LEASE_SECONDS: '3' } });
    await cluster.start('api');
    const first = await cluster.start('worker');
    const account = await cluster.createAccount('Cluster');
    // SMS undelivered (last digit 7: its SMPP receipt reaches the worker) -> VK, which also fails.
    const body = Array.from({ length: CASCADES }, (_, k) => ({
      destination: `7916${String(k).padStart(6, '0')}7`,
      cascade: [
        { channelType: 'SMS', senderName: 'Cluster', content: `cascade crash ${k}`, condition: 'not_delivered' },
        { channelType: 'VK', senderName: 'club1', content: `cascade crash ${k}` },
      ],
    }));
    const reply = await cluster.call('POST', '/api/v1/message/cascade', { token: account.traffic, body });
    expect(reply.body.errors).toBe(false);
    const count = async (sql: string): Promise<number> =>
      Number((await cluster!.testDb.db.query<{ n: number }>(sql))[0]!.n);
    // Killed while receipts turn into second steps: some cascades have moved on, others not yet.
    await waitFor(async () => (await count('SELECT count(*) AS n FROM messages WHERE cascade_step = 2')) > 50, {
      timeoutMs: 60_000,
    });
    first.run.child.kill('SIGKILL');
    await first.run.exited();
    const moved = await count('SELECT count(*) AS n FROM messages WHERE cascade_step = 2');
    expect(moved).toBeLessThan(CASCADES);

    await cluster.start('worker');
    await waitFor(async () => (await count("SELECT count(*) AS n FROM cascades WHERE state = 'running'")) === 0, {
      timeoutMs: 120_000,
    });
    // Each cascade: its SMS undelivered and exactly one VK step; no step without its cause, none twice.
    const rows = await cluster.testDb.db.query<{ steps: string; statuses: string; current_step: number }>(
      `SELECT string_agg(m.channel_type, ',' ORDER BY m.cascade_step) AS steps,
         string_agg(m.status, ',' ORDER BY m.cascade_step) AS statuses, c.current_step
       FROM cascades c JOIN ${messageRows('m')} ON m.account_id = c.account_id AND m.cascade_id = c.id
       GROUP BY c.account_id, c.id, c.current_step`,
    );
    expect(rows).toHaveLength(CASCADES);
    for (const row of rows) {
      expect(row).toEqual({ steps: 'SMS,VK', statuses: 'undelivered,undelivered', current_step: 2 });
    }
  }, 240_000);
});
