import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/postgresDb.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { submissionsByText, waitAllDelivered } from '../helpers/delivery.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startLoad } from '../helpers/load.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';
import { BEHIND_PGBOUNCER, type PgBouncer, schemaDatabase, startPgBouncer } from './servers.js';

// PgBouncer pools connections to a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');
/** Server connections PgBouncer may open: fewer than the processes' pools (2 x 8), so they share them. */
const SERVER_CONNECTIONS = 4;

describe.runIf(ON_POSTGRES)('Herald through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer | undefined;
  let cluster: Cluster | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await cluster?.close().catch(() => undefined);
    await bouncer?.stop();
    await receiver?.stop();
    cluster = undefined;
    bouncer = undefined;
    receiver = undefined;
  });

  it('takes steady sends with callbacks, each sent, final and called back once; 503 5031 when stalled', async () => {
    receiver = await new Receiver().start();
    cluster = await startCluster({
      delayMs: 20,
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true', HERALD_DB_POOL_SIZE: '8', ...BEHIND_PGBOUNCER },
      // The test's schema is put on the search path of PgBouncer's server connections (see schemaDatabase).
      heraldDatabaseUrl: async (testDb) => {
        bouncer = await startPgBouncer({
          databases: { herald: schemaDatabase(testDb.url!, testDb.schema!) },
          poolSize: SERVER_CONNECTIONS,
          queryWaitTimeoutS: 3,
        });
        return bouncer.url('herald');
      },
    });
    // Migrations, the api process and a worker (submitter, receipts, callbacks, jobs), all through PgBouncer.
    const api = await cluster.start('api');
    await cluster.start('worker');
    const account = await cluster.createAccount('Cluster');
    const load = startLoad(() => api.url!, account.traffic, {
      tag: 'pooled',
      batchSize: 100,
      concurrency: 2,
      senderName: 'Cluster',
      callbackUrl: receiver.url,
    });
    await waitFor(() => load.accepted.length >= 1000, { timeoutMs: 60_000 });
    await load.stop();
    expect([...load.outcomes.keys()]).toEqual([200]);
    const accepted = load.accepted.length;

    const db = cluster.testDb.db;
    await waitAllDelivered(db, account.id, accepted, 60_000);
    const stored = await db.query<{ id: string }>(`SELECT id::text AS id FROM messages WHERE account_id = $1`, [
      account.id,
    ]);
    expect(new Set(stored.map((r) => r.id))).toEqual(new Set(load.accepted));
    const submitted = submissionsByText(cluster.simulators.smsc, 'pooled ');
    expect(submitted.size).toBe(accepted);
    expect([...submitted.values()].filter((n) => n > 1)).toEqual([]);

    // Each message's delivered callback, once: a POST sent again (an answer slower than the timeout) carries the
    // same delivery id, so events are counted once per delivery id.
    const deliveredOnce = (): Map<string, number> => {
      const seen = new Set<string>();
      const perMessage = new Map<string, number>();
      for (const r of receiver!.received) {
        const id = r.headers['x-herald-delivery'] as string;
        if (seen.has(id)) continue;
        seen.add(id);
        for (const e of r.body as { message_uuid: string; callback_event: string }[])
          if (e.callback_event === 'delivered')
            perMessage.set(e.message_uuid, (perMessage.get(e.message_uuid) ?? 0) + 1);
      }
      return perMessage;
    };
    await waitFor(() => deliveredOnce().size === accepted, {
      timeoutMs: 60_000,
      describe: () => `${deliveredOnce().size} of ${accepted} delivered callbacks`,
    });
    const perMessage = deliveredOnce();
    expect(new Set(perMessage.keys())).toEqual(new Set(load.accepted));
    expect([...perMessage.values()].filter((n) => n > 1)).toEqual([]);

    // It all went through PgBouncer's transaction pool, on no more server connections than it allows.
    const admin = new pg.Client({ connectionString: bouncer!.adminUrl });
    await admin.connect();
    try {
      const pools = (await admin.query('SHOW POOLS')).rows.filter((r) => r.database === 'herald');
      expect(pools.map((r) => r.pool_mode)).toEqual(['transaction']);
      const stats = (await admin.query('SHOW STATS')).rows.find((r) => r.database === 'herald');
      expect(Number(stats.total_xact_count)).toBeGreaterThan(0);
      const servers = (await admin.query('SHOW SERVERS')).rows.filter((r) => r.database === 'herald');
      const clients = (await admin.query('SHOW CLIENTS')).rows.filter((r) => r.database === 'herald');
      expect(servers.length).toBeLessThanOrEqual(SERVER_CONNECTIONS);
      process.stdout.write(
        `pgbouncer: ${accepted} accepted, delivered and called back once; ${stats.total_xact_count} transactions ` +
          `of ${clients.length} client connections on ${servers.length} server connections\n`,
      );

      // No server connection to be had (the pool paused, as when every one is busy for too long): PgBouncer fails
      // the query after query_wait_timeout, and Herald answers 503 5031 as for a database away, never a 500.
      await admin.query('PAUSE herald');
      const message = {
        channelType: 'SMS',
        senderName: 'Cluster',
        destination: '79161234560',
        content: 'while paused',
      };
      const during = await call(api.url!, 'POST', '/api/v1/message', { token: account.traffic, body: [message] });
      expect(during.status).toBe(503);
      expect(during.body.error.code).toBe(5031);
      await admin.query('RESUME herald');
      const after = await call(api.url!, 'POST', '/api/v1/message', { token: account.traffic, body: [message] });
      expect(after.status).toBe(200);
    } finally {
      await admin.end();
    }
  }, 180_000);

  it('with prepared statements left on, names none once a server connection lacks one, and answers right', async () => {
    // The statement reads no table: any schema will do.
    bouncer = await startPgBouncer({
      databases: { herald: schemaDatabase(process.env.TEST_DATABASE_URL!, 'public') },
      poolSize: 2,
    });
    const errors: Error[] = [];
    const db = openPostgres({
      url: bouncer.url('herald'),
      poolSize: 1,
      preparedStatements: true,
      onError: (e) => errors.push(e),
    });
    const admin = new pg.Client({ connectionString: bouncer.adminUrl });
    await admin.connect();
    try {
      const long = `SELECT $1::int + 1 AS n /* ${'long enough to be named, '.repeat(10)} */`;
      // Named from the third call: prepared on the server connection that call ran on.
      for (let call = 0; call < 3; call++) expect(await db.query(long, [call])).toEqual([{ n: call + 1 }]);
      // PgBouncer closes its server connections as they are released: the next transaction of the same client
      // connection lands on a new one, which lacks the statement (what transaction pooling does between any two).
      await admin.query('RECONNECT herald');
      expect(await db.query(long, [10])).toEqual([{ n: 11 }]);
      expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/HERALD_DB_PREPARED_STATEMENTS=false/)]);
      // From then on nothing is named, in transactions too, whichever server connection they land on.
      await admin.query('RECONNECT herald');
      const inTransaction = await db.transaction((tx) => tx.query(long, [20]));
      expect(inTransaction).toEqual([{ n: 21 }]);
      expect(errors).toHaveLength(1);
    } finally {
      await admin.end();
      await db.close();
    }
  });
});
