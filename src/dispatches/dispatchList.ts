import { cascadesRunningOfDispatches } from '../cascades/index.js';
import type { Queryable } from '../db/db.js';
import { dispatchMessages } from '../messages/index.js';
import { type DispatchFilter, dispatchGetMany, dispatchIds, dispatchList, type StoredStatus } from './dispatchSql.js';
import { countersOf, countsOf, type DispatchStatus, dispatchToApi, startedStatus } from './dispatches.js';

/** The stored status each status of the API is read from. */
const STORED: Readonly<Record<DispatchStatus, StoredStatus>> = {
  initiated: 'initiated',
  scheduled: 'started',
  sending: 'started',
  awaiting: 'started',
  done: 'started',
  paused: 'paused',
  stopped: 'stopped',
};

/**
 * GET /api/v1/dispatch: a page of the account's dispatches that match, newest first, and how many match (DESIGN 12:
 * `total` counts exactly what the filters match). A status read from the messages (`scheduled`, `sending`,
 * `awaiting`, `done`) is found for every started dispatch the other filters match: two index probes each, and the
 * messages counted only of those with a message still in `sending`.
 */
export async function listDispatches(
  db: Queryable,
  now: Date,
  accountId: number,
  filter: Omit<DispatchFilter, 'statuses'>,
  status: DispatchStatus | undefined,
  perPage: number,
  offset: number,
): Promise<{ total: number; items: ReturnType<typeof dispatchToApi>[] }> {
  const stored = status === undefined ? null : STORED[status];
  let page: { rows: Awaited<ReturnType<typeof dispatchGetMany>>; total: number };
  if (stored !== 'started')
    page = await dispatchList(db, accountId, { ...filter, statuses: stored && [stored] }, perPage, offset);
  else {
    const started = await dispatchIds(db, accountId, { ...filter, statuses: ['started'] });
    const statuses = await startedStatuses(db, now, accountId, started);
    const matching = started.filter((id) => statuses.get(id) === status);
    page = {
      rows: await dispatchGetMany(db, accountId, matching.slice(offset, offset + perPage)),
      total: matching.length,
    };
  }
  const counts = await countsOf(
    db,
    now,
    accountId,
    page.rows.map((r) => r.id),
  );
  return { total: page.total, items: page.rows.map((r) => dispatchToApi(r, counts)) };
}

/** The status of each started dispatch of `ids`, read as its dispatch object reads it. */
async function startedStatuses(
  db: Queryable,
  now: Date,
  accountId: number,
  ids: readonly string[],
): Promise<Map<string, DispatchStatus>> {
  const [activity, running] = await Promise.all([
    dispatchMessages.activity(db, accountId, ids),
    cascadesRunningOfDispatches(db, accountId, ids),
  ]);
  const active = ids.filter((id) => activity.get(id)?.sending);
  const counts = await dispatchMessages.counts(db, accountId, active, now);
  return new Map(
    ids.map((id) => {
      const { messages, later } = countersOf(id, counts);
      const status = startedStatus({
        sending: activity.get(id)?.sending ?? false,
        allLater: later === messages.total,
        sent: activity.get(id)?.sent ?? false,
        running: (running.get(id) ?? 0) > 0,
      });
      return [id, status];
    }),
  );
}
