import { afterEach, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';

// Killing a process that shares a database with the test needs a PostgreSQL server.
const ON_POSTGRES = ENGINES.includes('postgres');
const COUNT = 2000;

describe.runIf(ON_POSTGRES)('a worker killed while it delivers callbacks', () => {
  let cluster: Cluster | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await cluster?.close();
    await receiver?.stop();
    cluster = undefined;
    receiver = undefined;
  });

  it('loses no event: the delivery cut by the kill is sent again by another worker with the same id', async () => {
    receiver = await new Receiver().start();
    // The receiver holds one POST unanswered, so a delivery is surely in flight when the worker dies.
    const HELD = 5;
    receiver.answer = (_request, index) => (index === HELD ? 'hang' : 200);
    cluster = await startCluster({
      delayMs: 20,
      env: { HERALD_LEASE_SECONDS: '3', HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    await cluster.start('api');
    const first = await cluster.start('worker');
    const account = await cluster.createAccount('Cluster');
    const ids: string[] = [];
    for (let start = 0; start < COUNT; start += 1000) {
      const body = Array.from({ length: 1000 }, (_, k) => ({
        channelType: 'SMS',
        senderName: 'Cluster',
        destination: `7916${String(start + k).padStart(6, '0')}0`,
        content: `callback crash ${start + k}`,
        callbackUrl: receiver!.url,
      }));
      ids.push(...(await cluster.send(account.traffic, body)));
    }
    await waitFor(() => receiver!.received.length > HELD, { timeoutMs: 30_000 });
    first.run.child.kill('SIGKILL');
    await first.run.exited();
    const heldDelivery = receiver.received[HELD]!.headers['x-herald-delivery'];
    const heldEvents = new Set(
      (receiver.received[HELD]!.body as { message_uuid: string }[]).map((e) => e.message_uuid),
    );
    expect(heldEvents.size).toBeGreaterThan(0);

    await cluster.start('worker');
    const delivered = (): Set<string> =>
      new Set(
        receiver!
          .events()
          .filter((e) => e.callback_event === 'delivered')
          .map((e) => e.message_uuid),
      );
    await waitFor(() => delivered().size === COUNT, {
      timeoutMs: 90_000,
      describe: () => `${delivered().size} of ${COUNT} delivered events received`,
    });
    expect([...delivered()].sort()).toEqual([...ids].sort());

    // A POST comes again only whole and with its delivery id: the one cut by the kill, and any the receiver
    // answered but the dead worker had not yet recorded. Taking each delivery id once, every event came once.
    const byDelivery = new Map<string, string[]>();
    for (const r of receiver.received) {
      const id = r.headers['x-herald-delivery'] as string;
      byDelivery.set(id, [...(byDelivery.get(id) ?? []), r.raw]);
    }
    const repeated = [...byDelivery.values()].filter((raws) => raws.length > 1);
    for (const raws of repeated) expect(new Set(raws).size).toBe(1);
    expect(byDelivery.get(heldDelivery as string)!.length).toBeGreaterThan(1);
    const once = [...byDelivery.values()]
      .flatMap((raws) => JSON.parse(raws[0]!) as { message_uuid: string }[])
      .map((e) => e.message_uuid);
    expect(once).toHaveLength(COUNT);
    expect(new Set(once).size).toBe(COUNT);
    const twice = receiver.events().length - COUNT;
    const db = cluster.testDb.db;
    await waitFor(
      async () =>
        (await db.query<{ n: number }>(`SELECT count(*) AS n FROM callback_deliveries WHERE state <> 'delivered'`))[0]!
          .n === 0,
    );
    process.stdout.write(
      `callback crash: ${receiver.received.length} POSTs, ` +
        `${repeated.length} sent again whole with their delivery id (${twice} events), none lost\n`,
    );
  }, 150_000);
});
