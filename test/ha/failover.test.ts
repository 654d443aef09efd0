import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { messageStatusCounts, submissionsByText } from '../helpers/delivery.js';
import { ENGINES, type TestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { type Load, startLoad } from '../helpers/load.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';
import { type PatroniCluster, PATRONI_TOOLS, patroniInstalled, startPatroniCluster } from './patroni.js';
import { BEHIND_PGBOUNCER, schemaDatabase, startPgBouncer } from './servers.js';

// Failover is PostgreSQL's (Patroni, a streaming standby): there is no PGlite half. `.ci/run` installs the Debian
// packages; on a machine with TEST_DATABASE_URL but without them the test fails and says what to install.
const ON_POSTGRES = ENGINES.includes('postgres');

/**
 * How Herald reaches the primary, each route one run of the same test: HAProxy itself, and PgBouncer (transaction
 * mode) in front of HAProxy, as an operator with a pooler runs it. `heraldUrl` makes the route of the test's schema
 * on the cluster (`testDb`), and tells how to stop what it started.
 */
const ROUTES: {
  name: string;
  heraldUrl?: (testDb: TestDb) => Promise<{ url: string; stop: () => Promise<void> }>;
}[] = [
  { name: 'HAProxy (Patroni health checks)' },
  {
    name: 'PgBouncer in front of HAProxy',
    heraldUrl: async (testDb) => {
      // A query waits for a server connection at most 3 s in the gap, then fails: 503 5031 (08P01).
      const bouncer = await startPgBouncer({
        databases: { herald: schemaDatabase(testDb.url!, testDb.schema!) },
        poolSize: 8,
        queryWaitTimeoutS: 3,
      });
      return { url: bouncer.url('herald'), stop: () => bouncer.stop() };
    },
  },
];

/** What one request of the probe saw: when it was sent and answered, and how. */
interface Probe {
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly status: number | 'network';
  readonly code?: number;
  readonly retryAfter?: string | null;
  readonly id?: string;
}

// One Patroni cluster for both routes: the second kills the primary the first promoted, once the node killed first
// has rejoined as the sync standby (pg_rewind: about 8.5 s, against 25 s for a new cluster, load average 17),
// which it does while the second route's Herald starts and reaches its steady load.
describe.runIf(ON_POSTGRES)('failover of the primary under load', () => {
  let patroni: PatroniCluster | undefined;

  beforeAll(async () => {
    if (!patroniInstalled())
      throw new Error(`missing ${PATRONI_TOOLS.join(', ')}: apt-get install -y patroni etcd-server haproxy`);
    // Two nodes' initdb and base backup on a busy 2-core machine take 10-25 s.
    patroni = await startPatroniCluster({ startTimeoutMs: 90_000 });
  }, 120_000);

  afterAll(async () => {
    await patroni?.destroy();
  }, 60_000);

  describe.each(ROUTES)('through $name', (route) => {
    let cluster: Cluster | undefined;
    let receiver: Receiver | undefined;
    // The test's clients, stopped in afterAll too: a failed test must not leave them sending in the worker.
    let sending: Load | undefined;
    let probing = false;
    let probe: Promise<void> | undefined;
    let stopRoute: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      receiver = await new Receiver().start();
    });

    afterAll(async () => {
      // Herald goes first, so that no request of the clients can keep them waiting.
      probing = false;
      const stopped = sending?.stop();
      await cluster?.close().catch(() => undefined);
      await probe;
      await stopped;
      await receiver?.stop();
      await stopRoute?.();
    }, 60_000);

    it('promotes the sync standby; Herald answers 503 5031 in the gap, then serves again, losing nothing', async () => {
      const startedAt = Date.now();
      cluster = await startCluster({
        delayMs: 20,
        databaseUrl: patroni!.url,
        ...(route.heraldUrl && {
          heraldDatabaseUrl: async (testDb: TestDb) => {
            const { url, stop } = await route.heraldUrl!(testDb);
            stopRoute = stop;
            return url;
          },
        }),
        // A callback POST whose outcome could not be recorded in the gap is sent again when its lease ends (with
        // its delivery id), and its URL's later events wait behind it: a shorter lease than the default 60 s keeps
        // the test short. Not too short: carrier acceptances written late (the gap, then the writer's back-off of up
        // to 5 s) must still find their messages leased, or those are sent again (seen with 5 s).
        env: {
          HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
          HERALD_LEASE_SECONDS: '20',
          ...(route.heraldUrl && BEHIND_PGBOUNCER),
        },
      });
      const api = await cluster.start('api');
      const worker = await cluster.start('worker');
      const account = await cluster.createAccount('Failover');
      const db = cluster.testDb.db;
      const load = startLoad(() => api.url!, account.traffic, {
        tag: 'failover',
        batchSize: 20,
        concurrency: 2,
        senderName: 'Failover',
        callbackUrl: receiver!.url,
        // About 300 messages a second at most: a load the busy 2-core machine keeps up with while the cluster runs.
        pauseMs: 100,
      });
      // Steady state first: sends accepted and callbacks of final statuses arriving.
      sending = load;
      await waitFor(() => load.accepted.length >= 400 && receiver!.events().length >= 100, { timeoutMs: 60_000 });

      const steadyAt = Date.now();
      // On the second route, the node killed by the first must be back as the sync standby (it rejoins meanwhile).
      const primary = await patroni!.waitForLeader({ timeoutMs: 90_000 });
      const killedAt = Date.now();
      patroni!.killPostmaster(primary);

      // A client that sends one message at a time from the kill on, recording when each answer came and what it was.
      const probes: Probe[] = [];
      probing = true;
      probe = (async () => {
        for (let n = 0; probing; n++) {
          const sentAt = Date.now();
          const body = [
            {
              channelType: 'SMS',
              senderName: 'Failover',
              destination: `7917${String(n).padStart(6, '0')}0`,
              content: `failover probe ${n}`,
              callbackUrl: receiver!.url,
            },
          ];
          try {
            const reply = await call(api.url!, 'POST', '/api/v1/message', { token: account.traffic, body });
            probes.push({
              sentAt,
              answeredAt: Date.now(),
              status: reply.status,
              code: reply.body?.error?.code,
              retryAfter: reply.headers.get('retry-after'),
              id: reply.status === 200 ? reply.body.items[0].messageUuid : undefined,
            });
          } catch {
            probes.push({ sentAt, answeredAt: Date.now(), status: 'network' });
          }
          // Paced like a client that retries: ten tries a second.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();

      // Patroni on the dead primary's node sees PostgreSQL gone and, with primary_start_timeout 0, hands the leader
      // key over instead of restarting it in place; the standby's Patroni promotes it.
      const promoted = await patroni!.waitForLeader({ not: primary.name, standby: false, timeoutMs: 60_000 });
      const promotedAt = Date.now();
      // Herald finds the new primary by itself: the same processes, through the same URL.
      const served = await waitFor(() => probes.find((p) => p.status === 200), { timeoutMs: 60_000 });
      const refused = probes.filter((p) => p.status !== 200);
      // More sends after the return, so that the new primary does real work before the end.
      const acceptedAtReturn = load.accepted.length;
      await waitFor(() => load.accepted.length >= acceptedAtReturn + 200, { timeoutMs: 60_000 });
      probing = false;
      await probe;
      await load.stop();

      // Back within 30 s of the kill, on the real clock: an upper bound, not a measurement (docs/scaling.md).
      expect(served.answeredAt - killedAt).toBeLessThan(30_000);
      // A process that ended shows its last words: the cause is in them, not in the exit code.
      expect(api.run.child.exitCode, api.run.output().slice(-6000)).toBeNull();
      expect(worker.run.child.exitCode, worker.run.output().slice(-6000)).toBeNull();
      // The gap was seen, and in it every answer was 503 5031 with a Retry-After, never a 500 nor a dropped request.
      expect(refused.length + load.refusals.length).toBeGreaterThan(0);
      for (const p of refused) expect(p).toMatchObject({ status: 503, code: 5031, retryAfter: expect.any(String) });
      expect([...load.outcomes.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
      for (const refusal of load.refusals) expect(refusal).toMatchObject({ body: { error: { code: 5031 } } });

      // Every message that got a 200 is on the new primary and reaches its final status.
      const accepted = [...load.accepted, ...probes.flatMap((p) => (p.id ? [p.id] : []))];
      await waitFor(async () => (await messageStatusCounts(db, { ids: accepted })).delivered === accepted.length, {
        timeoutMs: 90_000,
        describe: async () =>
          `${JSON.stringify(await messageStatusCounts(db, { ids: accepted }))} of ${accepted.length}`,
      });
      // Each reached the SMSC exactly once (a message whose 200 was lost with the primary may exist too: its client
      // was told 503 and would send it again, so it is counted apart).
      const submitted = submissionsByText(cluster.simulators.smsc, 'failover ');
      const texts = await db.query<{ id: string; content: string }>(
        'SELECT id::text AS id, content FROM messages WHERE id = ANY($1::uuid[])',
        [accepted],
      );
      expect(texts).toHaveLength(accepted.length);
      expect(texts.filter((m) => submitted.get(m.content) !== 1)).toEqual([]);

      // Callbacks: one final status per accepted message. A POST may come again after the failover (sent, but its
      // outcome not yet recorded when the primary died), only whole and with its delivery id; taking each delivery
      // id once, each message's final status came once.
      const finals = (): Map<string, number> => {
        const byDelivery = new Map<string, string>();
        for (const r of receiver!.received) byDelivery.set(r.headers['x-herald-delivery'] as string, r.raw);
        const counts = new Map<string, number>();
        for (const raw of byDelivery.values())
          for (const e of JSON.parse(raw) as { message_uuid: string; callback_event: string }[])
            if (e.callback_event === 'delivered') counts.set(e.message_uuid, (counts.get(e.message_uuid) ?? 0) + 1);
        return counts;
      };
      await waitFor(() => accepted.every((id) => finals().has(id)), {
        timeoutMs: 90_000,
        describe: () => `${accepted.filter((id) => finals().has(id)).length} of ${accepted.length} final callbacks`,
      });
      const repeated = new Map<string, Set<string>>();
      for (const r of receiver!.received) {
        const id = r.headers['x-herald-delivery'] as string;
        repeated.set(id, (repeated.get(id) ?? new Set()).add(r.raw));
      }
      expect([...repeated.values()].filter((raws) => raws.size > 1)).toEqual([]);
      expect(accepted.filter((id) => finals().get(id) !== 1)).toEqual([]);
      const acceptedSet = new Set(accepted);
      const extra = [...finals().keys()].filter((id) => !acceptedSet.has(id)).length;

      const finishedAt = Date.now();
      const status = (await call(api.url!, 'GET', '/readyz')).status;
      expect(status).toBe(200);
      process.stdout.write(
        `failover (${route.name}): ${primary.name} killed, ${promoted.name} promoted after ` +
          `${promotedAt - killedAt} ms, Herald served again after ${served.answeredAt - killedAt} ms; ` +
          `${refused.length} probes (each within ${Math.max(...refused.map((p) => p.answeredAt - p.sentAt))} ms) ` +
          `and ${load.refusals.length} batches answered 503 5031 in the gap; ` +
          `${accepted.length} messages accepted, each delivered and called back once` +
          `${extra ? ` (${extra} more stored whose 200 was lost with the primary)` : ''}; ` +
          `steady load after ${steadyAt - startedAt} ms, all called back ${finishedAt - killedAt} ms after the kill\n`,
      );
    }, 240_000);
  });
});
