import { afterAll, describe, expect, it } from 'vitest';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, type Engine } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { messagesTrigger, triggerFunctionSql } from '../helpers/triggers.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

const START = Date.parse('2026-03-10T09:00:00Z');
const LEASE_MS = 30_000;
/** The embedded simulators' SMPP connector binds again at most this long after its last try. */
const RECONNECT_MAX_MS = 5000;
/** The delivery writer's longest back-off after a failed write. */
const WRITER_BACKOFF_MAX_MS = 5000;

describe.concurrent('a claim whose outcome is written after its lease ran out', () => {
  const heralds: TestHerald[] = [];
  afterAll(async () => {
    await Promise.all(heralds.map((t) => t.close()));
  });

  it.each(ENGINES)(
    'does not make the message due again while the newer claim sends it: it goes once (%s)',
    async (engine: Engine) => {
      // The clock stands still: the lease, the writer's back-off and the connector's pauses run as the test moves it.
      // The writer's records of outcomes fail until the trigger's function lets them through (as a stalled process's
      // would not be written). The trigger is made before Herald starts and the function replaced later: DDL on
      // messages while Herald runs (a DROP TRIGGER) waits behind its statements and deadlocked with them in a CI run.
      const t = await startTestHerald(engine, {
        delivery: { delayMs: 20, submitter: { leaseMs: LEASE_MS } },
        clock: new TestClock(new Date(START)),
        prepare: messagesTrigger('refuse_outcomes', 'BEFORE UPDATE', 'NEW.history IS DISTINCT FROM OLD.history'),
      });
      heralds.push(t);
      const { db } = t.testDb;
      await db.query(triggerFunctionSql('refuse_outcomes', "RAISE EXCEPTION 'outcomes refused by the test';"));
      const account = await t.createAccount({ senderNames: [['SMS', 'Stale']] });
      const smsc = t.simulators!.smsc;
      const connector = t.herald.connectors.find((c) => c.type === 'smpp')!;
      const writer = t.herald.writer;
      const row = async (id: string) =>
        (
          await db.query<{ status: string; attempts: number; lease_expires_at: Date | null }>(
            `SELECT status, attempts, lease_expires_at FROM ${messageRows()} WHERE account_id = $1 AND id = $2`,
            [account.id, id],
          )
        )[0]!;

      smsc.setDown(true);
      await waitFor(() => !connector.available());

      // The first claim (the API's hand-over) finds no connector: its retry is not written.
      const [id] = await t.send(account.traffic, [
        message('SMS', { senderName: 'Stale', destination: '79161230001', content: 'stale claim' }),
      ]);
      await waitFor(() => writer.stats.failures >= 1);
      // The SMSC is back, and busy: a submission waits in the connector, retried after each pause.
      smsc.setDown(false);
      smsc.refuseSubmissions(SMPP_STATUS.RTHROTTLED);
      t.clock.advance(RECONNECT_MAX_MS);
      await waitFor(() => connector.available());
      expect(smsc.submissions).toEqual([]);

      // Past the first lease: the second claim takes the message and submits it.
      t.clock.set(new Date(START + LEASE_MS + 1000));
      await waitFor(() => smsc.submissions.some((s) => s.status === SMPP_STATUS.RTHROTTLED), {
        describe: async () => JSON.stringify(await row(id!)),
      });
      expect(await row(id!)).toMatchObject({ status: 'sending', attempts: 2 });

      // The first claim's retry is written while the second claim's submission waits in the connector (once the
      // function lets it through, or already at the writer's first try after the second claim: a retry that changes
      // no row meets no trigger). It leaves the message the second claim's, held by that claim's record (the second
      // claim cleared the lease the first one wrote in the row, and counted its attempt); applied, it would have made
      // it due at once, and a third claim would have sent it again.
      await db.query(triggerFunctionSql('refuse_outcomes'));
      t.clock.advance(WRITER_BACKOFF_MAX_MS);
      await untilWritten(t.herald, () => writer.stats.retries >= 1);
      expect(await row(id!)).toEqual({ status: 'sending', attempts: 2, lease_expires_at: null });
      const records = await db.query<{ lease_expires_at: Date }>(
        'SELECT lease_expires_at FROM message_claims WHERE $1 = ANY(ids)',
        [id],
      );
      expect(records).toEqual([{ lease_expires_at: new Date(START + LEASE_MS + 1000 + LEASE_MS) }]);

      smsc.refuseSubmissions(undefined);
      // The connector's pauses run as the clock moves, but not past the second claim's lease: on a busy machine the
      // test could otherwise move it there before the submission went, and a claim would rightly take it again.
      const leaseEnd = START + LEASE_MS + 1000 + LEASE_MS;
      await waitFor(
        async () => {
          if (t.clock.now().getTime() < leaseEnd - 2000) t.clock.advance(1000);
          return (await row(id!)).status === 'delivered';
        },
        { describe: async () => JSON.stringify(await row(id!)) },
      );
      const accepted = smsc.submissions.filter((s) => s.text === 'stale claim' && s.messageId !== null);
      expect(accepted).toHaveLength(1);
    },
    60_000,
  );
});
