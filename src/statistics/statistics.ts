import type { Db } from '../db/db.js';
import { uuidBound } from '../util/uuid7.js';
import {
  type GroupBy,
  type StatsFilter,
  statsDirtyDays,
  statsFromRollup,
  statsLive,
  statsRolledUntil,
  type StatsRow,
} from './statisticsSql.js';
import { DAY_MS, dayOf } from '../util/time.js';

export interface StatsGroup {
  key: string;
  messages: number;
  parts: number;
  statuses: Record<string, number>;
  price: Record<string, number>;
  clicks: number;
  conversions: number;
}

/**
 * GET /api/v1/statistics: figures of the account's outbound messages created in [from, to),
 * grouped. Whole UTC days that are rolled up (and have not changed since) come from stats_daily; the rest (recent
 * days, partial days at the edges, changed days) is aggregated live from the messages' id ranges, so a query reads
 * a few rollup rows plus the messages of the last days only. Grouped by tag, a message counts once in each of its
 * tags' groups; the total counts every message once.
 */
export async function statistics(
  db: Db,
  accountId: number,
  from: Date,
  to: Date,
  groupBy: GroupBy,
  filter: StatsFilter,
): Promise<{ items: StatsGroup[]; total: StatsGroup }> {
  const rolledUntil = await statsRolledUntil(db);
  const dirty = await statsDirtyDays(db, accountId);
  const rolledDays: string[] = [];
  const live: [number, number][] = [];
  const addLive = (start: number, end: number): void => {
    const last = live.at(-1);
    if (last && last[1] === start) last[1] = end;
    else live.push([start, end]);
  };
  const firstWholeDay = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  if (firstWholeDay > from.getTime()) addLive(from.getTime(), Math.min(firstWholeDay, to.getTime()));
  for (let day = firstWholeDay; day < to.getTime(); day += DAY_MS) {
    const end = Math.min(day + DAY_MS, to.getTime());
    const name = dayOf(day);
    if (end === day + DAY_MS && rolledUntil !== null && name <= rolledUntil && !dirty.has(name)) rolledDays.push(name);
    else addLive(day, end);
  }
  const ranges = live.map(([start, end]): [string, string] => [uuidBound(start, 'low'), uuidBound(end - 1, 'high')]);
  const rowsBy = async (grouping: GroupBy): Promise<StatsRow[]> =>
    (
      await Promise.all([
        statsFromRollup(db, accountId, grouping, filter, rolledDays),
        statsLive(db, accountId, grouping, filter, ranges),
      ])
    ).flat();
  const rows = await rowsBy(groupBy);
  // A message with several tags is in several tag groups and an untagged one in none: the total counts each once.
  const total = groupBy === 'tag' ? combine(await rowsBy('status')).total : undefined;
  const result = combine(rows);
  return { items: result.items, total: total ?? result.total };
}

function combine(rows: readonly StatsRow[]): { items: StatsGroup[]; total: StatsGroup } {
  const empty = (key: string): StatsGroup => ({
    key,
    messages: 0,
    parts: 0,
    statuses: {},
    price: {},
    clicks: 0,
    conversions: 0,
  });
  const groups = new Map<string, StatsGroup>();
  const total = empty('total');
  for (const row of rows) {
    const group = groups.get(row.key) ?? empty(row.key);
    groups.set(row.key, group);
    for (const g of [group, total]) {
      g.messages += Number(row.messages);
      g.parts += Number(row.parts);
      g.statuses[row.status] = (g.statuses[row.status] ?? 0) + Number(row.messages);
      if (row.currency) g.price[row.currency] = round((g.price[row.currency] ?? 0) + Number(row.price));
      g.clicks += Number(row.clicks);
      g.conversions += Number(row.conversions);
    }
  }
  // Code point order: the same on every machine whatever its locale.
  return { items: [...groups.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), total };
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;
