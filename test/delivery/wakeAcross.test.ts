import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import type { Db } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/postgresDb.js';
import { listenPostgres } from '../../src/db/postgresListener.js';
import { wakeAtCommit, type WakeTopic } from '../../src/db/wake.js';
import { type Herald, startHerald } from '../../src/main.js';
import { startEmbeddedSimulators, type EmbeddedSimulators } from '../../src/simulators/embeddedSimulators.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, type Engine, listeningPids, openTestDb, type TestDb } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { signalled, untilCallbackRound, untilWritten } from '../helpers/signals.js';
import { ADMIN_TOKEN, startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

/** Longer than any test: a loop that claims within a test was woken, not polled. */
const HOUR_MS = 3_600_000;

/**
 * An api Herald and a worker Herald on one database through different connections (PostgreSQL: two pools; PGlite:
 * its one connection, as in one process), the worker's safety polls an hour long, the test clock standing still.
 */
async function startPair(engine: Engine): Promise<{
  testDb: TestDb;
  api: TestHerald;
  worker: Herald;
  simulators: EmbeddedSimulators;
  close(): Promise<void>;
}> {
  const testDb = await openTestDb(engine);
  const clock = new TestClock();
  const simulators = await startEmbeddedSimulators({ delayMs: 0, clock });
  const workerDb: Db =
    engine === 'postgres' ? openPostgres({ url: testDb.url!, poolSize: 4, schema: testDb.schema! }) : testDb.db;
  const config = loadConfig({
    HERALD_PORT: '0',
    HERALD_DEMO: 'false',
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
    HERALD_SIMULATORS: 'off',
    HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
  });
  const worker = await startHerald({
    config,
    role: 'worker',
    clock,
    db: workerDb,
    log: pino({ level: 'silent' }),
    configFile: simulators.configFile,
    submitter: { pollMs: HOUR_MS },
    callbackSender: { pollMs: HOUR_MS, timeoutMs: 5000 },
    startJobs: false,
  });
  for (const connector of worker.connectors)
    if (connector instanceof SmppConnector) expect(await connector.waitBound(20_000)).toBe(true);
  const api = await startTestHerald(engine, {
    clock,
    on: { testDb, simulators: undefined },
    env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
  });
  simulators.connectWebhooks(api.url);
  return {
    testDb,
    api,
    worker,
    simulators,
    async close() {
      await api.close();
      await worker.close();
      if (workerDb !== testDb.db) await workerDb.close();
      await simulators.stop();
      await testDb.drop();
    },
  };
}

describe.each(ENGINES)('wake-ups across connections (%s)', (engine) => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('a message sent through the api is claimed by a worker sleeping an hour, and its callback goes out', async () => {
    const pair = await startPair(engine);
    closers.push(() => pair.close());
    const receiver = await new Receiver().start();
    closers.push(() => receiver.stop());
    const account = await pair.api.createAccount({ senderNames: [['SMS', 'Wake']] });
    const claimed = signalled(pair.worker.submitter!.testSignals.claimed, (n) => n > 0);
    const [id] = await pair.api.send(account.traffic, [
      {
        channelType: 'SMS',
        senderName: 'Wake',
        destination: '79161234567',
        content: 'woken across',
        callbackUrl: receiver.url,
        callbackEvents: ['sent'],
      },
    ]);
    expect(await claimed).toBe(1);
    await untilWritten(pair.worker, () => pair.simulators.smsc.submissions.some((s) => s.text === 'woken across'));
    // The status events were stored by the worker's writer; the trigger's notification woke its callback sender.
    const event = await untilCallbackRound(pair.worker, () => receiver.events().find((e) => e.message_uuid === id));
    expect(event).toMatchObject({ message_uuid: id, status: 'sent' });
  });

  it('notifications reach the listener at the commit only, and a burst wakes a busy loop once', async () => {
    const testDb = await openTestDb(engine);
    closers.push(() => testDb.drop());
    const heard: WakeTopic[] = [];
    const stop = await testDb.db.listenWakeups({ onWake: (topic) => heard.push(topic), onListening: () => undefined });
    closers.push(stop);
    await expect(
      testDb.db.transaction(async (tx) => {
        await wakeAtCommit(tx, 'messages');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await testDb.db.transaction(async (tx) => {
      for (let i = 0; i < 100; i++) await wakeAtCommit(tx, 'messages');
    });
    await waitFor(() => heard.length > 0);
    // The rolled back transaction's notification never came; the hundred of one transaction came as one.
    expect(heard).toEqual(['messages']);
  });

  it('listeners of one database each hear every wake-up; one that comes later is told at once', async () => {
    const testDb = await openTestDb(engine);
    closers.push(() => testDb.drop());
    const first = { heard: [] as WakeTopic[], listening: 0 };
    const second = { heard: [] as WakeTopic[], listening: 0 };
    const listen = (who: typeof first): Promise<() => Promise<void>> =>
      testDb.db.listenWakeups({ onWake: (topic) => who.heard.push(topic), onListening: () => who.listening++ });
    const stopFirst = await listen(first);
    const stopSecond = await listen(second);
    closers.push(stopSecond);
    // Each is told once that it listens: the first when the connection was made, the second as it came.
    expect([first.listening, second.listening]).toEqual([1, 1]);
    await testDb.db.transaction((tx) => wakeAtCommit(tx, 'callbacks'));
    await waitFor(() => first.heard.length > 0 && second.heard.length > 0);
    expect([first.heard, second.heard]).toEqual([['callbacks'], ['callbacks']]);
    // The first goes; the second still hears.
    await stopFirst();
    await testDb.db.transaction((tx) => wakeAtCommit(tx, 'messages'));
    await waitFor(() => second.heard.length > 1);
    expect(second.heard).toEqual(['callbacks', 'messages']);
    expect(first.heard).toEqual(['callbacks']);
  });
});

describe.runIf(ENGINES.includes('postgres'))('the wake-up listener on PostgreSQL', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The server process of the schema's listening connection. */
  const listenerPid = async (testDb: TestDb): Promise<number | undefined> => (await listeningPids(testDb))[0];

  it('connects again after its connection is terminated, and has the loops catch up', async () => {
    const testDb = await openTestDb('postgres');
    closers.push(() => testDb.drop());
    let listening = 0;
    let lost = 0;
    const heard: WakeTopic[] = [];
    const stop = await listenPostgres(
      { url: testDb.url!, schema: testDb.schema! },
      { onWake: (topic) => heard.push(topic), onListening: () => listening++, onLost: () => lost++ },
    );
    closers.push(stop);
    expect(listening).toBe(1);
    const first = await waitFor(() => listenerPid(testDb));
    await testDb.db.query('SELECT pg_terminate_backend($1)', [first]);
    // onListening again: the caller's catch-up pass (main.ts wakes the submitter and the callback sender).
    await waitFor(() => listening === 2);
    expect(lost).toBeGreaterThanOrEqual(1);
    const second = await waitFor(() => listenerPid(testDb));
    expect(second).not.toBe(first);
    await testDb.db.transaction((tx) => wakeAtCommit(tx, 'callbacks'));
    await waitFor(() => heard.includes('callbacks'));
  });

  it('listeners of a process share one connection, made again for all after a loss, gone with the last', async () => {
    const testDb = await openTestDb('postgres');
    closers.push(() => testDb.drop());
    const db = openPostgres({ url: testDb.url!, poolSize: 2, schema: testDb.schema! });
    closers.push(() => db.close());
    const listeners = [0, 1].map(() => ({ heard: [] as WakeTopic[], listening: 0, lost: 0 }));
    const stops = await Promise.all(
      listeners.map((who) =>
        db.listenWakeups({
          onWake: (topic) => who.heard.push(topic),
          onListening: () => who.listening++,
          onLost: () => who.lost++,
        }),
      ),
    );
    const [first] = await waitFor(async () => {
      const pids = await listeningPids(testDb);
      return pids.length > 0 ? pids : undefined;
    });
    expect(await listeningPids(testDb)).toEqual([first]);
    await testDb.db.query('SELECT pg_terminate_backend($1)', [first]);
    // Both lose it and both are told when it listens again (their catch-up passes); still one connection.
    await waitFor(() => listeners.every((who) => who.listening === 2));
    expect(listeners.map((who) => who.lost >= 1)).toEqual([true, true]);
    const [second] = await waitFor(async () => {
      const pids = await listeningPids(testDb);
      return pids.length > 0 && !pids.includes(first!) ? pids : undefined;
    });
    expect(await listeningPids(testDb)).toEqual([second]);
    await testDb.db.transaction((tx) => wakeAtCommit(tx, 'routes'));
    await waitFor(() => listeners.every((who) => who.heard.includes('routes')));
    // The connection stays while one listens, and goes with the last.
    await stops[0]!();
    expect(await listeningPids(testDb)).toEqual([second]);
    await stops[1]!();
    await waitFor(async () => ((await listeningPids(testDb)).length === 0 ? true : undefined));
  });

  it('a worker whose listener was terminated claims a message sent after it listens again', async () => {
    const pair = await startPair('postgres');
    closers.push(() => pair.close());
    const account = await pair.api.createAccount({ senderNames: [['SMS', 'Wake']] });
    const first = await waitFor(() => listenerPid(pair.testDb));
    await pair.testDb.db.query('SELECT pg_terminate_backend($1)', [first]);
    await waitFor(async () => {
      const pid = await listenerPid(pair.testDb);
      return pid !== undefined && pid !== first;
    });
    const claimed = signalled(pair.worker.submitter!.testSignals.claimed, (n) => n > 0);
    await pair.api.send(account.traffic, [
      { channelType: 'SMS', senderName: 'Wake', destination: '79161234567', content: 'after the loss' },
    ]);
    expect(await claimed).toBe(1);
    await untilWritten(pair.worker, () => pair.simulators.smsc.submissions.some((s) => s.text === 'after the loss'));
  });
});
