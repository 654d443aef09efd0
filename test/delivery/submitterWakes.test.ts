import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wakeAtCommit } from '../../src/db/wake.js';
import type { TestSignal } from '../../src/shared/testSignal.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

const HOUR_MS = 3_600_000;
/** Four places, all of them for any message; no safety poll within a test. */
const SUBMITTER = { maxInFlight: 4, channelInFlight: 4, urgentPercent: 0, pollMs: HOUR_MS };

/** How many times a signal fires from now on (each firing is counted, whatever its value). */
function counting<T>(signal: TestSignal<T>): { readonly count: () => number; stop(): void } {
  let count = 0;
  let on = true;
  void (async () => {
    while (on) {
      await signal.next();
      count++;
    }
  })();
  return { count: () => count, stop: () => void (on = false) };
}

/**
 * What wakes a process's submitter: stored messages announced, not the SMPP servers' `receipts` wake-up; and what
 * the fast lane (a process of role all stores the messages it accepts already leased to its own submitter) has no
 * place for is claimed as its messages end.
 */
describe.each(ENGINES)("the submitter's wake-ups (%s)", (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 0, submitter: SUBMITTER } });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const delivered = async (ids: readonly string[]): Promise<boolean> =>
    (
      await t.testDb.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${messageRows()} WHERE id = ANY($1::uuid[]) AND status = 'delivered'`,
        [ids],
      )
    )[0]!.n === ids.length;

  it("leaves the SMPP servers' wake-up for receipts to them: the submitter neither claims nor looks", async () => {
    const submitter = t.herald.submitter!;
    await waitFor(() => submitter.sleeping);
    const claims = counting(submitter.testSignals.claimed);
    const looks = counting(submitter.testSignals.looked);
    const rounds = counting(t.herald.callbackSender!.testSignals.round);
    try {
      // Delivered in order at the commit: once the callback sender has had its wake-up, the worker had the other.
      await t.testDb.db.transaction(async (tx) => {
        await wakeAtCommit(tx, 'receipts');
        await wakeAtCommit(tx, 'callbacks');
      });
      await waitFor(() => rounds.count() >= 1 && submitter.sleeping, {
        describe: () => `${rounds.count()} callback rounds, sleeping ${submitter.sleeping}`,
      });
      expect([claims.count(), looks.count()]).toEqual([0, 0]);
    } finally {
      claims.stop();
      looks.stop();
      rounds.stop();
    }
  });

  it('still claims what does not fit the fast lane once places free up', async () => {
    const submitter = t.herald.submitter!;
    await waitFor(() => submitter.sleeping);
    const claims = counting(submitter.testSignals.claimed);
    try {
      // Four fit the places; the other three are stored unleased and claimed as the four end.
      const ids = await t.send(
        account.traffic,
        Array.from({ length: 7 }, (_, i) => message('SMS', { destination: `7916556000${i}` })),
      );
      await untilWritten(t.herald, () => delivered(ids));
      expect(claims.count()).toBeGreaterThan(0);
      // The claims' records, ended with their messages' outcomes, go with the next claim (one the freed places
      // woke) or at the sleeping loop's next timed look: none is left behind, and none stops the submitter.
      const records = async () =>
        (await t.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM message_claims'))[0]!.n;
      await waitFor(() => submitter.sleeping);
      t.clock.advance(HOUR_MS);
      await waitFor(async () => submitter.sleeping && (await records()) === 0, {
        describe: async () => `sleeping ${submitter.sleeping}, ${await records()} records`,
      });
    } finally {
      claims.stop();
    }
  });
});
