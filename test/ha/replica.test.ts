import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/postgresDb.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { freePort, type PostgresServer, startPostgres, startStandby } from './servers.js';

// A streaming standby needs PostgreSQL servers of the test's own.
const ON_POSTGRES = ENGINES.includes('postgres');

/** The value of one series in Prometheus text format. */
function metric(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.runIf(ON_POSTGRES)('a read replica (HERALD_READ_DATABASE_URL)', () => {
  let primary: PostgresServer | undefined;
  let standby: PostgresServer | undefined;
  let testDb: TestDb | undefined;
  /** The standby as a superuser sees it: to pause and resume its replay. */
  let standbyDb: Db | undefined;
  let h: TestHerald | undefined;

  beforeAll(async () => {
    primary = await startPostgres();
    standby = await startStandby(primary);
    standbyDb = openPostgres({ url: standby.url, poolSize: 1 });
    testDb = await openTestDb('postgres', { url: primary.url });
    await caughtUp();
    h = await startTestHerald('postgres', {
      on: { testDb, simulators: undefined },
      env: { DATABASE_URL: inSchema(primary.url), HERALD_READ_DATABASE_URL: inSchema(standby.url) },
    });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await standbyDb?.close();
    await testDb?.drop();
    standby?.destroy();
    primary?.destroy();
  });

  /** A server's URL whose connections see the test's schema. */
  function inSchema(url: string): string {
    const withSchema = new URL(url);
    withSchema.searchParams.set('options', `-c search_path=${testDb!.schema}`);
    return withSchema.toString();
  }

  /** Waits until the standby has replayed all the primary had written when asked. */
  async function caughtUp(): Promise<void> {
    const [written] = await testDb!.db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await waitFor(
      async () =>
        (
          await standbyDb!.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
            written!.lsn,
          ])
        )[0]!.done,
    );
  }

  const sms = (content: string) => ({
    channelType: 'SMS',
    senderName: 'Replica',
    destination: '79161234560',
    content,
  });

  async function listed(account: TestAccount): Promise<string[]> {
    const reply = await h!.call('GET', '/api/v1/message?per_page=1000', { token: account.traffic });
    expect(reply.status).toBe(200);
    return reply.body.items.map((m: { messageUuid: string }) => m.messageUuid).sort();
  }

  async function counted(account: TestAccount): Promise<number> {
    const now = h!.clock.now().getTime();
    const range = `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}`;
    const reply = await h!.call('GET', `/api/v1/statistics?${range}`, { token: account.system });
    expect(reply.status).toBe(200);
    return reply.body.total.messages;
  }

  async function lag(): Promise<{ bytes: number | undefined; seconds: number | undefined }> {
    const text = (await h!.call('GET', '/metrics')).body as string;
    expect(metric(text, 'herald_db_replica_pool_connections{state="total"}')).toBeGreaterThan(0);
    return {
      bytes: metric(text, 'herald_db_replica_lag_bytes'),
      seconds: metric(text, 'herald_db_replica_lag_seconds'),
    };
  }

  it('serves lists and statistics from the replica, and a GET of a message just sent always finds it', async () => {
    const account = await h!.createAccount({ senderNames: [['SMS', 'Replica']] });
    const first = await h!.send(account.traffic, [sms('first')]);
    await caughtUp();
    expect(await listed(account)).toEqual(first);
    expect(await counted(account)).toBe(1);
    await waitFor(async () => (await lag()).bytes === 0);

    // The replica stands still: what is written now exists only on the primary.
    await standbyDb!.query('SELECT pg_wal_replay_pause()');
    await waitFor(
      async () =>
        (await standbyDb!.query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state'))[0]!.state ===
        'paused',
    );
    const fresh: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [id] = await h!.send(account.traffic, [sms(`fresh ${i}`)]);
      const got = await h!.call('GET', `/api/v1/message/${id}`, { token: account.traffic });
      expect(got.status).toBe(200);
      expect(got.body.messageUuid).toBe(id);
      fresh.push(id!);
    }
    // The same for a dispatch created now: found by its id, missing from the list.
    const dispatch = await h!.call('POST', '/api/v1/dispatch', {
      token: account.traffic,
      body: { dispatchName: 'Fresh', channelType: 'SMS', senderName: 'Replica', content: 'Hello' },
    });
    expect(dispatch.status).toBe(201);
    const dispatchId = dispatch.body.dispatchId as string;
    const gotDispatch = await h!.call('GET', `/api/v1/dispatch/${dispatchId}`, { token: account.traffic });
    expect(gotDispatch.status).toBe(200);
    expect(gotDispatch.body.dispatchId).toBe(dispatchId);
    const dispatches = async (): Promise<number> =>
      (await h!.call('GET', '/api/v1/dispatch', { token: account.traffic })).body.total;
    expect(await dispatches()).toBe(0);
    // The list and the statistics miss them: they were read on the replica.
    expect(await listed(account)).toEqual(first);
    expect(await counted(account)).toBe(1);
    const behind = await waitFor(async () => {
      const seen = await lag();
      return seen.bytes !== undefined && seen.bytes > 0 && seen;
    });
    expect(behind.seconds).toBeGreaterThan(0);

    // Replay goes on: the replica catches up, the list has them all and the lag is back to 0.
    await standbyDb!.query('SELECT pg_wal_replay_resume()');
    await caughtUp();
    expect(await listed(account)).toEqual([...first, ...fresh].sort());
    expect(await counted(account)).toBe(6);
    expect(await dispatches()).toBe(1);
    await waitFor(async () => {
      const seen = await lag();
      return seen.bytes === 0 && seen.seconds === 0;
    });
  });

  it('stops start-up when the replica does not answer', async () => {
    const nobody = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    await expect(
      startTestHerald('postgres', {
        on: { testDb: testDb!, simulators: undefined },
        env: { DATABASE_URL: inSchema(primary!.url), HERALD_READ_DATABASE_URL: nobody },
      }),
    ).rejects.toThrow(/^HERALD_READ_DATABASE_URL: the read replica does not answer: /);
  });
});
