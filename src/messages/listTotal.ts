import type { Queryable } from '../db/db.js';
import { DAY_MS, dayOf } from '../util/time.js';
import { uuidBound, uuidTime } from '../util/uuid7.js';
import { type IdRange, type MessageFilter, messageListCount } from './messageLookupSql.js';
import { messageOldestId } from './messageStatisticsSql.js';

/** Conditions of a message list that the statistics rollup can count (null: any). */
export interface RollupFilter {
  readonly channelType: string | null;
  readonly senderName: string | null;
  readonly status: string | null;
  /** Messages carrying this tag. */
  readonly tag: string | null;
  readonly trafficType: string | null;
  /** true: first steps of cascades and messages outside them; false: later steps. */
  readonly root: boolean | null;
}

/**
 * What a message list's total asks of the capability that keeps the statistics rollup (statistics/:
 * `statsCleanDayCounts`, given in main.ts): messages/ is below statistics/, which reads messages to roll them up.
 */
export interface RolledUpDays {
  /**
   * For each UTC day of [firstDay, lastDay] that is rolled up and unchanged since, how many of the account's
   * outbound messages created that day pass the filter (0 for a day without any).
   */
  cleanDayCounts(
    db: Queryable,
    accountId: number,
    filter: RollupFilter,
    firstDay: string,
    lastDay: string,
  ): Promise<Map<string, number>>;
}

/**
 * The exact `total` of GET /api/v1/message without reading the whole history. A list of outbound messages whose
 * filters the statistics rollup keeps (status, channel, sender name, one tag, traffic type, root, time bounds)
 * takes the whole UTC days that are rolled up and unchanged since from `stats_daily` (a few rows a day) and counts
 * only the rest from the messages themselves (the last two days, the partial days at the edges, days changed
 * since their rollup): the rollup is exact at every moment (see docs/entities.md, Statistics). Days older than the
 * retention (HERALD_RETENTION_DAYS, plus a day) or than the account's oldest message are always counted from the
 * messages: their messages are deleted while their rollup stays. Any other filter (a destination, a uuid, a
 * dispatch or cascade, each read through an index; or content, read state, several tags...) is counted from the
 * messages alone.
 */
export async function messageListTotal(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  options: { now: Date; retentionDays: number | undefined; rollup: RolledUpDays },
): Promise<number> {
  const counted = rollupFilter(filter);
  if (!counted) return messageListCount(db, accountId, filter);
  // Rolled-up days before the account's oldest message have lost theirs (partitions dropped, see
  // docs/operations.md), and so have days older than the retention (plus a day): both count from the messages.
  const oldest = await messageOldestId(db, accountId);
  if (oldest === undefined) return 0;
  const horizon = Math.max(
    Math.floor(uuidTime(oldest) / DAY_MS) * DAY_MS,
    options.retentionDays === undefined ? 0 : options.now.getTime() - (options.retentionDays - 1) * DAY_MS,
    filter.fromId === null ? 0 : uuidTime(filter.fromId),
  );
  const firstDay = Math.ceil(horizon / DAY_MS) * DAY_MS;
  // The last day that ends within the bounds (time_to is inclusive to its millisecond).
  const lastDay =
    filter.toId === null ? options.now.getTime() : Math.floor((uuidTime(filter.toId) + 1) / DAY_MS) * DAY_MS - DAY_MS;
  // No message of the account is older than its oldest: a range from there plans the partitions from there only.
  const from = filter.fromId ?? oldest;
  if (lastDay < firstDay) return messageListCount(db, accountId, filter, [[from, filter.toId]]);
  const days = await options.rollup.cleanDayCounts(db, accountId, counted, dayOf(firstDay), dayOf(lastDay));
  let total = 0;
  const live: IdRange[] = [];
  let low = from;
  for (const day of [...days.keys()].sort()) {
    total += days.get(day)!;
    const start = Date.parse(`${day}T00:00:00Z`);
    const dayLow = uuidBound(start, 'low');
    if (low === null || low < dayLow) live.push([low, uuidBound(start - 1, 'high')]);
    low = uuidBound(start + DAY_MS, 'low');
  }
  live.push([low, filter.toId]);
  return total + (await messageListCount(db, accountId, filter, live));
}

/** The filter as the rollup can count it, or undefined when it has a condition the rollup does not keep. */
function rollupFilter(f: MessageFilter): RollupFilter | undefined {
  const tags = f.tags === null ? null : [...new Set(f.tags)];
  const unkept = [
    f.messageUuid,
    f.destination,
    f.content,
    f.sendingMethod,
    f.templateId,
    f.country,
    f.cascadeId,
    f.errorCode,
  ];
  if (
    f.direction !== 'outbound' ||
    unkept.some((value) => value !== null) ||
    f.trafficCenterId !== null ||
    f.dispatchId !== null ||
    f.readStatus.length > 0 ||
    (tags !== null && tags.length !== 1)
  )
    return undefined;
  return {
    channelType: f.channelType,
    senderName: f.senderName,
    status: f.status,
    tag: tags?.[0] ?? null,
    trafficType: f.trafficType,
    root: f.root,
  };
}
