import { afterAll, describe, expect, it } from 'vitest';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { THROTTLE_PAUSE_MAX_MS } from '../../src/connectors/smpp/smscThrottling.js';
import { TestClock } from '../helpers/clock.js';
import { messageStatusCounts } from '../helpers/delivery.js';
import { ENGINES, type Engine } from '../helpers/engines.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

/** How long the SMSC throttles, on Herald's clock: the pauses and the queue's retries run on it. */
const THROTTLING_MS = 30_000;
const MESSAGES = 1000;
/** The bound: throughput is back within this of the end of throttling. */
const RECOVERY_MS = 10_000;
/** The embedded simulators' SMPP window: the PDUs in flight when the throttling begins. */
const EMBEDDED_WINDOW = 200;

describe.concurrent('the SMSC throttles for 30 s under load', () => {
  const heralds: TestHerald[] = [];
  afterAll(async () => {
    await Promise.all(heralds.map((t) => t.close()));
  });

  it.each(ENGINES)(
    'loses and duplicates nothing, and sends the rest within 10 s of the end (%s)',
    async (engine: Engine) => {
      const t = await startTestHerald(engine, {
        delivery: { delayMs: 20 },
        clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      });
      heralds.push(t);
      const account = await t.createAccount({ senderNames: [['SMS', 'Throttle']] });
      const smsc = t.simulators!.smsc;
      const body = Array.from({ length: MESSAGES }, (_, i) => ({
        channelType: 'SMS',
        senderName: 'Throttle',
        destination: `7916${String(i).padStart(6, '0')}1`,
        content: `throttled ${i}`,
      }));
      const ids = await t.send(account.traffic, body);
      await waitFor(() => smsc.submitCount >= 50);
      smsc.refuseSubmissions(SMPP_STATUS.RTHROTTLED);
      const throttledAt = t.clock.now().getTime();
      // Through 30 s of throttling, a step of the longest pause at a time: each step sees the connector try again.
      while (t.clock.now().getTime() - throttledAt < THROTTLING_MS) {
        const tried = smsc.submissions.length;
        t.clock.advance(THROTTLE_PAUSE_MAX_MS);
        await waitFor(() => smsc.submissions.length > tried);
      }
      const refused = smsc.submissions.filter((s) => s.status === SMPP_STATUS.RTHROTTLED).length;
      smsc.refuseSubmissions(undefined);
      const endedAt = t.clock.now().getTime();
      const acceptedBefore = smsc.submissions.filter((s) => s.messageId !== null).length;
      expect(acceptedBefore).toBeLessThan(MESSAGES);
      // The connector's pause (at most 4 s) and the queue's retry: everything accepted within 10 s of the end.
      await waitFor(() => smsc.submissions.filter((s) => s.messageId !== null).length === MESSAGES, {
        timeoutMs: 30_000,
        describe: () => `${smsc.submissions.filter((s) => s.messageId !== null).length} of ${MESSAGES} accepted`,
      });
      expect(t.clock.now().getTime() - endedAt).toBeLessThan(RECOVERY_MS);
      await waitFor(async () => (await messageStatusCounts(t.testDb.db, { ids })).delivered === MESSAGES, {
        timeoutMs: 30_000,
        describe: async () => JSON.stringify(await messageStatusCounts(t.testDb.db, { ids })),
      });
      const accepted = new Map<string, number>();
      for (const s of smsc.submissions) if (s.messageId !== null) accepted.set(s.text, (accepted.get(s.text) ?? 0) + 1);
      expect(accepted.size).toBe(MESSAGES);
      expect([...accepted.values()].filter((n) => n > 1)).toEqual([]);
      // The connector paused instead of hammering: the window in flight when throttling began, then one probe per
      // pause (measured: 206 refusals in all).
      expect(refused).toBeLessThan(EMBEDDED_WINDOW + THROTTLING_MS / 1000);
    },
    120_000,
  );
});
