import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { type Herald, startHerald } from '../../src/main.js';
import { type EmbeddedSimulators, startEmbeddedSimulators } from '../../src/simulators/embeddedSimulators.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound, untilWritten } from '../helpers/signals.js';
import { ADMIN_TOKEN } from '../helpers/testHerald.js';
import { messageRows } from '../helpers/messageRows.js';

describe.each(ENGINES)('callbacks across a restart and private addresses (%s)', (engine) => {
  let testDb: TestDb;
  let simulators: EmbeddedSimulators;
  const clock = new TestClock('2026-03-10T09:00:00Z', { flowing: true });
  const start = (env: Record<string, string>): Promise<Herald> =>
    startHerald({
      config: loadConfig({
        HERALD_PORT: '0',
        HERALD_DEMO: 'false',
        HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
        HERALD_SIMULATORS: 'off',
        HERALD_LOG_LEVEL: 'silent',
        HERALD_CALLBACK_RETRY_INTERVAL: '1',
        ...env,
      }),
      role: 'all',
      clock,
      db: testDb.db,
      log: pino({ level: 'silent' }),
      configFile: simulators.configFile,
      submitter: { pollMs: 50 },
      callbackSender: { pollMs: 50, timeoutMs: 1000 },
    });

  beforeAll(async () => {
    testDb = await openTestDb(engine);
    simulators = await startEmbeddedSimulators({ delayMs: 10 });
  });
  afterAll(async () => {
    await simulators?.stop();
    await testDb?.drop();
  });

  it('loses no callback when Herald stops between the status change and the delivery', async () => {
    const receiver = await new Receiver().start();
    const url = receiver.url;
    await receiver.stop(); // Nobody listens: every attempt is refused.
    let herald = await start({ HERALD_CALLBACK_ALLOW_PRIVATE: 'true' });
    simulators.connectWebhooks(herald.url!);
    const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
    const account = (await call(herald.url!, 'POST', '/admin/v1/accounts', { ...admin, body: { name: 'restart' } }))
      .body;
    await call(herald.url!, 'POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      ...admin,
      body: { channelType: 'SMS', name: 'Shop' },
    });
    const sent = await call(herald.url!, 'POST', '/api/v1/message', {
      token: account.tokens.traffic,
      body: [
        {
          channelType: 'SMS',
          senderName: 'Shop',
          destination: '79161233330',
          content: 'restart',
          callbackUrl: url,
          callbackEvents: ['sent', 'delivered'],
        },
      ],
    });
    const id = sent.body.items[0].messageUuid;
    await untilWritten(
      herald,
      async () =>
        (await testDb.db.query<{ status: string }>(`SELECT status FROM ${messageRows()} WHERE id = $1`, [id]))[0]!
          .status === 'delivered',
    );
    await herald.close();

    // The receiver comes back on the same port; a new Herald delivers what the old one could not.
    const back = await new Receiver().start(Number(new URL(url).port));
    herald = await start({ HERALD_CALLBACK_ALLOW_PRIVATE: 'true' });
    try {
      await untilCallbackRound(herald, () => back.events().filter((e) => e.message_uuid === id).length >= 2, {
        timeoutMs: 15_000,
      });
      expect(
        back
          .events()
          .filter((e) => e.message_uuid === id)
          .map((e) => e.callback_event),
      ).toEqual(['sent', 'delivered']);
    } finally {
      await herald.close();
      await back.stop();
    }
  });

  it('refuses at delivery a host that resolves to a private address when private callbacks are off', async () => {
    const receiver = await new Receiver().start();
    let herald = await start({ HERALD_CALLBACK_ALLOW_PRIVATE: 'true' });
    simulators.connectWebhooks(herald.url!);
    const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
    const account = (await call(herald.url!, 'POST', '/admin/v1/accounts', { ...admin, body: { name: 'private' } }))
      .body;
    // Accepted while private callbacks were allowed; "localhost" resolves to 127.0.0.1 when it is delivered.
    const sent = await call(herald.url!, 'POST', '/api/v1/message', {
      token: account.tokens.traffic,
      body: [
        {
          channelType: 'VK',
          senderName: 'club',
          destination: '79161233340',
          content: 'x',
          callbackUrl: `http://localhost:${receiver.port}/cb`,
          callbackEvents: ['sent'],
        },
      ],
    });
    expect(sent.body.errors).toBe(false);
    await herald.close();
    herald = await start({ HERALD_CALLBACK_ALLOW_PRIVATE: 'false' });
    try {
      const failed = await untilCallbackRound(herald, async () => {
        const list = await call(herald.url!, 'GET', '/api/v1/callbacks?state=failed', { token: account.tokens.system });
        return list.body.items[0] as { lastError: string } | undefined;
      });
      expect(failed.lastError).toMatch(/private address/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await herald.close();
      await receiver.stop();
    }
  });
});
