import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { ENGINES } from '../helpers/engines.js';
import { waitFor } from '../helpers/waitFor.js';
import { messageLeasedSql } from '../../src/messages/claimSql.js';
import { messageRows } from '../helpers/messageRows.js';

// Killing a process that shares a database with the test needs a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');
const MESSAGES = 3000;
const STATUSES = ['sending', 'sent', 'delivered', 'undelivered', 'unsent'] as const;
type Counters = Record<'total' | (typeof STATUSES)[number], number>;

describe.runIf(ON_POSTGRES)('a worker killed while a dispatch is sending', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('keeps the counters exact at every read; the survivor ends every message once', async () => {
    // A short lease: the killed worker's messages fall due again 3 s after their claim.
    cluster = await startCluster({ delayMs: 20, env: { HERALD_LEASE_SECONDS: '3' } });
    await cluster.start('api');
    const doomed = await cluster.start('worker');
    await cluster.start('worker');
    const account = await cluster.createAccount('Cluster');
    const c = cluster;
    const api = (method: string, path: string, body?: unknown) =>
      c.call(method, `/api/v1/dispatch${path}`, { token: account.traffic, ...(body !== undefined ? { body } : {}) });

    const created = await api('POST', '', {
      dispatchName: 'Crash',
      channelType: 'SMS',
      senderName: 'Cluster',
      content: 'Hello {name}, code {code} at {shop}',
    });
    const id = created.body.dispatchId as string;
    // Last digit 0: delivered by the simulator.
    const destinations = Array.from({ length: MESSAGES }, (_, i) => `7916${String(i).padStart(6, '0')}0`);
    for (let i = 0; i < MESSAGES; i += 1000) {
      const reply = await api(
        'POST',
        `/${id}/messages`,
        destinations
          .slice(i, i + 1000)
          .map((destination, k) => ({ destination, substitutions: { name: `N${i + k}`, code: i + k, shop: 'S' } })),
      );
      expect(reply.body.filter((item: { messageUuid?: string }) => !item.messageUuid)).toEqual([]);
    }

    const db = c.testDb.db;
    const counted = async (): Promise<Counters> => {
      const rows = await db.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM ${messageRows()} WHERE dispatch_id = $1 GROUP BY status`,
        [id],
      );
      const counters = Object.fromEntries(['total', ...STATUSES].map((k) => [k, 0])) as Counters;
      for (const row of rows) {
        counters[row.status as keyof Counters] = row.n;
        counters.total += row.n;
      }
      return counters;
    };
    // A read of the API lies between two counts of the messages: a counter that only grows (delivered,
    // handed over = sent + delivered + undelivered, unsent) is within them, sending (it only falls) too, and
    // the total never moves. Equal to both whenever nothing moved between them.
    const reads: Counters[] = [];
    const readChecked = async (): Promise<Counters> => {
      const before = await counted();
      const read = (await api('GET', `/${id}`)).body.messages as Counters;
      const after = await counted();
      const handed = (x: Counters) => x.sent + x.delivered + x.undelivered;
      expect(read.total).toBe(MESSAGES);
      expect(read.sending + handed(read) + read.unsent).toBe(MESSAGES);
      for (const [low, value, high] of [
        [before.delivered, read.delivered, after.delivered],
        [handed(before), handed(read), handed(after)],
        [before.unsent, read.unsent, after.unsent],
        [after.sending, read.sending, before.sending],
      ] as const) {
        expect(value).toBeGreaterThanOrEqual(low);
        expect(value).toBeLessThanOrEqual(high);
      }
      if (JSON.stringify(before) === JSON.stringify(after)) expect(read).toEqual(before);
      reads.push(read);
      return read;
    };

    expect((await api('POST', `/${id}/start`)).status).toBe(200);
    let reading = true;
    const reader = (async () => {
      while (reading) await readChecked();
    })();
    // Killed mid-dispatch: a tenth has gone.
    await waitFor(
      async () => {
        const now = await counted();
        return now.sent + now.delivered >= MESSAGES / 10;
      },
      { timeoutMs: 60_000, intervalMs: 5 },
    );
    doomed.run.child.kill('SIGKILL');
    await doomed.run.exited();
    // What the workers held at the kill (claimed, leased, outcome not recorded): the killed one's among them.
    const [held] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${messageRows()}
       WHERE dispatch_id = $1 AND status = 'sending' AND ${messageLeasedSql('messages', 'now()')}`,
      [id],
    );

    await waitFor(async () => (await api('GET', `/${id}`)).body.status === 'done', { timeoutMs: 120_000 });
    reading = false;
    await reader;
    const end = await readChecked();
    expect(end).toEqual({ total: MESSAGES, sending: 0, sent: 0, delivered: MESSAGES, undelivered: 0, unsent: 0 });
    expect(await counted()).toEqual(end);

    // Each message reached its final status once: one final entry in its history (a receipt the killed worker
    // never acknowledged comes again on the survivor's session: recorded as ignored).
    const finals = await db.query<{ destination: string; finals: number }>(
      `SELECT destination,
         (SELECT count(*)::int FROM jsonb_array_elements(history) h
          WHERE h->>'status' IN ('delivered', 'undelivered', 'unsent') AND NOT h ? 'ignored') AS finals
       FROM ${messageRows()} WHERE dispatch_id = $1`,
      [id],
    );
    expect(finals.filter((m) => m.finals !== 1)).toEqual([]);
    // Every message reached the SMSC; one was submitted twice only if the killed worker held it (it may have
    // submitted it before dying, and the survivor claimed it again once the lease ran out: at least once, not
    // exactly once, is what a lease permits).
    const submits = new Map<string, number>();
    for (const s of c.simulators.smsc.submissions)
      if (s.messageId !== null) submits.set(s.destination, (submits.get(s.destination) ?? 0) + 1);
    expect(destinations.filter((d) => !submits.has(d))).toEqual([]);
    const twice = destinations.filter((d) => submits.get(d)! > 1);
    expect(twice.length).toBeLessThanOrEqual(held!.n);
    expect(reads.length).toBeGreaterThan(10);
    process.stdout.write(
      `dispatch crash: ${reads.length} reads checked, ${held!.n} messages in workers' hands at the kill, ` +
        `${twice.length} submitted twice\n`,
    );
  }, 240_000);
});
