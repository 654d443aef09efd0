import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const COUNT = 250;

describe.each(ENGINES)('a callback receiver down for the whole retry window (%s)', (engine) => {
  let t: TestHerald | undefined;
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  it('ends its deliveries failed without holding up another receiver, and replays every event once back', async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: {
        HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
        HERALD_CALLBACK_RETRY_INTERVAL: '1',
        HERALD_CALLBACK_RETRY_WINDOW: '3',
      },
      // The dead host's circuit opens after its failures; a short pause lets the replay through soon after.
      callbackSender: { breakerOpenMs: 1000 },
    });
    const account = await t.createAccount({ senderNames: [['SMS', 'Receivers']] });
    // The dead receiver's port is taken and released, so that connections to it are refused.
    const dead = await new Receiver().start();
    const deadUrl = dead.url;
    const deadPort = dead.port;
    await dead.stop();
    const alive = await new Receiver().start();
    receivers.push(alive);

    const body = Array.from({ length: COUNT * 2 }, (_, i) => ({
      channelType: 'SMS',
      senderName: 'Receivers',
      destination: `7916${String(i).padStart(6, '0')}0`,
      content: `receiver down ${i}`,
      callbackUrl: i % 2 === 0 ? deadUrl : alive.url,
    }));
    const ids = await t.send(account.traffic, body);
    const deadIds = new Set(ids.filter((_, i) => i % 2 === 0));

    // The living receiver gets all of its events while the other is down.
    await waitFor(() => new Set(alive.events().map((e) => e.message_uuid)).size === COUNT, { timeoutMs: 30_000 });
    expect(alive.events().every((e) => !deadIds.has(e.message_uuid))).toBe(true);

    type Delivery = { id: string; state: string; events: number; url: string };
    const failedList = async (): Promise<Delivery[]> =>
      (await t!.call('GET', '/api/v1/callbacks?state=failed&per_page=100', { token: account.system })).body
        .items as Delivery[];
    // Every delivery to the dead receiver ends failed once the window is over, and together they hold its events.
    await waitFor(async () => (await failedList()).reduce((sum, d) => sum + d.events, 0) === COUNT, {
      timeoutMs: 60_000,
      describe: async () => JSON.stringify((await failedList()).map((d) => d.events)),
    });
    const failed = await failedList();
    const open = (await t.call('GET', '/api/v1/callbacks?state=open', { token: account.system })).body
      .items as Delivery[];
    expect(open).toEqual([]);

    const back = await new Receiver().start(deadPort);
    receivers.push(back);
    const replay = await t.call('POST', '/api/v1/callbacks/replay', {
      token: account.system,
      body: { ids: failed.map((d) => d.id) },
    });
    expect(replay.body.items.every((item: { code: number }) => item.code === 200)).toBe(true);
    await waitFor(() => back.events().length >= COUNT, { timeoutMs: 30_000 });
    const got = back.events().map((e) => e.message_uuid);
    expect(new Set(got)).toEqual(deadIds);
    expect(got).toHaveLength(COUNT);
    // Replayed under the ids they failed with.
    expect(new Set(back.received.map((r) => r.headers['x-herald-delivery']))).toEqual(new Set(failed.map((d) => d.id)));
  }, 120_000);
});
