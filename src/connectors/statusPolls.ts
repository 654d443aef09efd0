import type { Db } from '../db/db.js';
import {
  submissionPollsClaim,
  submissionPollsDone,
  submissionPollsNext,
  submissionRecordPrices,
} from '../messages/index.js';
import type { Job, Quiet } from '../shared/jobs.js';
import type { Clock } from '../util/clock.js';
import type { CarrierReceipt, Connector, ReceiptSink } from './connector.js';
import { DeclarativeConnector } from './http/declarative/declarativeConnector.js';
import type { StatusReport } from './http/declarative/statusReports.js';

/** How many of a connector's submissions one claim takes (the poll's own batch splits them into requests). */
const CLAIM = 1000;

/**
 * The status polls of declarative connectors that have one (`status.poll`, DESIGN 19): a job per connector, every
 * `intervalSeconds`, asks the provider about the submissions due, records the prices and receipts its answers
 * give, and stops asking about a message once its status is final (delivered, where no read can follow).
 */
export function statusPollJobs(deps: {
  db: Db;
  clock: Clock;
  connectors: readonly Connector[];
  receiptSink: ReceiptSink;
}): Job[] {
  const { db, clock, receiptSink } = deps;
  return deps.connectors
    .filter((c): c is DeclarativeConnector => c instanceof DeclarativeConnector && c.compiled.poll !== undefined)
    .map((connector) => {
      const poll = connector.compiled.poll!;
      // A delivered message is still asked about where the provider reports reads.
      const readFollows = [...connector.compiled.statusMap.values()].includes('read');
      return {
        name: `status-poll:${connector.id}`,
        everyMs: poll.everyMs,
        run: async (): Promise<Quiet | number> => {
          let asked = 0;
          for (;;) {
            const now = clock.now();
            const ids = await submissionPollsClaim(
              db,
              connector.id,
              now,
              new Date(now.getTime() + poll.everyMs),
              CLAIM,
            );
            if (ids.length === 0) break;
            asked += ids.length;
            const receipts = await recordStatusReports(db, receiptSink, connector.id, await connector.poll(ids, now));
            const done = receipts.filter((r) => r.state !== 'delivered' || !readFollows).map((r) => r.carrierId);
            await submissionPollsDone(db, connector.id, done);
            if (ids.length < CLAIM) break;
          }
          if (asked > 0) return asked;
          const next = await submissionPollsNext(db, connector.id);
          return { quietUntil: next?.getTime() ?? Infinity };
        },
      };
    });
}

/**
 * Records a declarative connector's status reports, from a webhook or a poll: their prices on the submissions, then
 * their receipts (resolved once committed). Returns the receipts.
 */
export async function recordStatusReports(
  db: Db,
  receiptSink: ReceiptSink,
  connectorId: string,
  reports: readonly StatusReport[],
): Promise<CarrierReceipt[]> {
  const prices = reports.flatMap((r) =>
    r.price === undefined ? [] : [{ connectorId, carrierId: r.carrierId, price: r.price }],
  );
  await submissionRecordPrices(db, prices);
  const receipts = reports.flatMap((r) => (r.receipt ? [r.receipt] : []));
  await receiptSink(receipts);
  return receipts;
}
