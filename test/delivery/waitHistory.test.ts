import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { untilSignalled } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { historyColumns, historyOf, type HistoryRow } from '../../src/messages/messageObject.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

describe.each(ENGINES)('the status history of a message that waits for a connector (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const row = async (id: string) =>
    (
      await t.testDb.db.query<{ status: string } & HistoryRow>(
        `SELECT status, ${historyColumns('messages')} FROM ${messageRows()} WHERE account_id = $1 AND id = $2`,
        [account.id, id],
      )
    )[0]!;

  beforeAll(async () => {
    // The clock stands still: each retry comes when the test moves it by the retry delay (2 s).
    t = await startTestHerald(engine, { delivery: { delayMs: 20 }, clock: new TestClock('2026-03-10T09:00:00Z') });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  it('records an outage over many claim rounds as one entry, then the send', async () => {
    const smsc = t.simulators!.smsc;
    smsc.setDown(true);
    await waitFor(() => !t.herald.connectors.find((c) => c.type === 'smpp')!.available());
    const [id] = await t.send(account.traffic, [message('SMS', { destination: '79161230001', content: 'outage' })]);
    // Each round's retry moves the wait's next try on by 2 s: each look follows a claim round.
    const claimed = t.herald.submitter!.testSignals.claimed;
    const nextTry = async (): Promise<number> => {
      const last = (await row(id!)).history.at(-1) as { retryAt?: string } | undefined;
      return last?.retryAt ? Date.parse(last.retryAt) : 0;
    };
    const start = t.clock.now().getTime();
    await untilSignalled(claimed, async () => (await nextTry()) >= start + 2000);
    for (let round = 2; round <= 12; round++) {
      t.clock.advance(2000);
      await untilSignalled(claimed, async () => (await nextTry()) >= start + round * 2000, {
        describe: async () => JSON.stringify(await row(id!)),
      });
    }
    smsc.setDown(false);
    // Reconnection and the next retry come as the clock moves.
    await waitFor(
      async () => {
        t.clock.advance(1000);
        return (await row(id!)).status === 'delivered';
      },
      { describe: async () => JSON.stringify(await row(id!)) },
    );
    const stored = await row(id!);
    // As the message object shows it (its first entry, sending at its creation, is not stored).
    const history = historyOf(stored);
    expect(history.map((h) => h.status)).toEqual(['sending', 'sending', 'sent', 'delivered']);
    expect(history[1]).toMatchObject({
      at: '2026-03-10T09:00:00.000Z',
      detail: 'no connector of the route is available',
    });
    // The one entry's next try is the last round's.
    expect(Date.parse((history[1] as { retryAt: string }).retryAt)).toBeGreaterThanOrEqual(start + 24_000);
  });
});
