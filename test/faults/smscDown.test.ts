import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { messageStatusCounts, submissionsByText } from '../helpers/delivery.js';
import { ENGINES, type Engine } from '../helpers/engines.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

// A minute of Herald's clock: the SMPP session's reconnect backoff, the submitter's retries and the lifetimes all
// run on it, so the test jumps over the outage instead of waiting it out.
const OUTAGE_MS = 65_000;
/** The embedded simulators' SMPP connector retries a bind at most this long after the last try. */
const RECONNECT_MAX_MS = 5000;
const LONG = 300;
const SHORT = 50;

describe.concurrent('the SMSC down for a minute', () => {
  const heralds: TestHerald[] = [];
  afterAll(async () => {
    await Promise.all(heralds.map((t) => t.close()));
  });

  it.each(ENGINES)(
    'keeps messages waiting within their lifetime, sends them once when it is back, and ends the expired ones (%s)',
    async (engine: Engine) => {
      const t = await startTestHerald(engine, {
        delivery: { delayMs: 20 },
        clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      });
      heralds.push(t);
      const account = await t.createAccount({ senderNames: [['SMS', 'Outage']] });
      const smsc = t.simulators!.smsc;
      smsc.setDown(true);

      const send = (count: number, tag: string, ttl?: number): Promise<string[]> => {
        const body = Array.from({ length: count }, (_, i) => ({
          channelType: 'SMS',
          senderName: 'Outage',
          destination: `7916${String(i).padStart(6, '0')}0`,
          content: `${tag} ${i}`,
          ...(ttl ? { ttl } : {}),
        }));
        return t.send(account.traffic, body);
      };
      const waiting = await send(LONG, 'outage long');
      // The shortest SMS lifetime: it runs out before the SMSC comes back.
      const expiring = await send(SHORT, 'outage short', 60);
      const statusOf = (ids: string[]): Promise<Record<string, number>> => messageStatusCounts(t.testDb.db, { ids });

      const binds = smsc.bindAttempts;
      t.clock.advance(OUTAGE_MS / 2);
      // The connector kept trying through the first half, and nothing went out.
      await waitFor(() => smsc.bindAttempts > binds);
      expect(smsc.submitCount).toBe(0);
      expect(await statusOf([...waiting, ...expiring])).toEqual({ sending: LONG + SHORT });
      t.clock.advance(OUTAGE_MS / 2);
      smsc.setDown(false);
      // The next bind is at most one backoff away.
      t.clock.advance(RECONNECT_MAX_MS);

      await waitFor(async () => (await statusOf(waiting)).delivered === LONG, {
        timeoutMs: 60_000,
        describe: async () => JSON.stringify(await statusOf(waiting)),
      });
      await waitFor(async () => (await statusOf(expiring)).unsent === SHORT, {
        timeoutMs: 30_000,
        describe: async () => JSON.stringify(await statusOf(expiring)),
      });
      const texts = submissionsByText(smsc, '');
      expect([...texts.keys()].filter((text) => text.startsWith('outage long')).length).toBe(LONG);
      expect([...texts.keys()].filter((text) => text.startsWith('outage short'))).toEqual([]);
      expect([...texts.values()].filter((n) => n > 1)).toEqual([]);
      const expired = await t.call('GET', `/api/v1/message/${expiring[0]}`, { token: account.traffic });
      expect(expired.body).toMatchObject({ status: 'unsent', errorCode: expect.any(Number) });
    },
    60_000,
  );
});
