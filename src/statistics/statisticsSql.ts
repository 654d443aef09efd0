import { conversionsPerMessageSql } from '../conversions/index.js';
import type { Queryable } from '../db/db.js';
import { shortLinkClicksPerMessageSql } from '../links/index.js';
import { messageFiguresSql, type RollupFilter } from '../messages/index.js';

/** A group's figures, one row per group key and status and currency. */
export interface StatsRow {
  key: string;
  status: string;
  currency: string;
  messages: number;
  parts: number;
  price: string;
  clicks: number;
  conversions: number;
}

export const GROUP_BY = ['day', 'channelType', 'senderName', 'status', 'tag', 'cascadeStep', 'trafficType'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export interface StatsFilter {
  readonly channelType: string | null;
  readonly senderName: string | null;
  readonly status: string | null;
  readonly tag: string | null;
  readonly trafficType: string | null;
}

/** Days rolled up before traffic types were recorded read as SERVICE, as their messages do. */
const TRAFFIC_TYPE = "CASE WHEN s.traffic_type = '' THEN 'SERVICE' ELSE s.traffic_type END";

/**
 * Key expressions over a relation `s` with the rollup's columns (day, channel_type, sender_name, status, tag,
 * cascade_step).
 */
const KEY: Readonly<Record<GroupBy, string>> = {
  day: "to_char(s.day, 'YYYY-MM-DD')",
  channelType: 's.channel_type',
  senderName: 's.sender_name',
  status: 's.status',
  tag: 's.tag',
  // Messages outside cascades are their own group.
  cascadeStep: "CASE WHEN s.cascade_step = 0 THEN 'none' ELSE s.cascade_step::text END",
  trafficType: TRAFFIC_TYPE,
};

/**
 * $5 is the tag filter; $6 is '' to read the per-message rows (tag '') or NULL, grouping by tag, to read the
 * per-tag rows (any tag but ''); $7 the traffic type.
 */
const FILTER = `($2::text IS NULL OR s.channel_type = $2) AND ($3::text IS NULL OR s.sender_name = $3)
  AND ($4::text IS NULL OR s.status = $4)
  AND (s.tag = coalesce($5::text, $6::text) OR ($5::text IS NULL AND $6::text IS NULL AND s.tag <> ''))
  AND ($7::text IS NULL OR ${TRAFFIC_TYPE} = $7)`;

/** The parameters $2 to $7 of FILTER. */
const filterParameters = (groupBy: GroupBy, filter: StatsFilter): unknown[] => [
  filter.channelType,
  filter.senderName,
  filter.status,
  filter.tag,
  groupBy === 'tag' ? null : '',
  filter.trafficType,
];

/**
 * The per-message figures of an account's ($1) outbound messages whose ids fall in the given ranges, as the rollup's
 * rows (see messageFiguresSql). Clicks and conversions are summed per message from their own tables, limited to the
 * same id ranges.
 */
function perMessageSql(ranges: (column: string) => string, withTags: boolean): string {
  return messageFiguresSql('$1', ranges, withTags, {
    clicks: shortLinkClicksPerMessageSql('$1', ranges),
    conversions: conversionsPerMessageSql('$1', ranges),
  });
}

/** Rolls one account's day up again: its rows are replaced by a fresh aggregation. */
export async function statsRollUpDay(
  db: Queryable,
  accountId: number,
  day: string,
  low: string,
  high: string,
): Promise<void> {
  await db.query('DELETE FROM stats_daily WHERE account_id = $1 AND day = $2', [accountId, day]);
  await db.query(
    `INSERT INTO stats_daily (account_id, day, channel_type, sender_name, status, currency, tag, cascade_step,
       traffic_type, messages, parts, price, clicks, conversions)
     SELECT $1, day, channel_type, sender_name, status, currency, tag, cascade_step, traffic_type, count(*),
       sum(parts), sum(price), sum(clicks), sum(conversions)
     FROM (${perMessageSql((column) => `${column} BETWEEN $2::uuid AND $3::uuid`, true)}) s
     GROUP BY day, channel_type, sender_name, status, currency, tag, cascade_step, traffic_type`,
    [accountId, low, high],
  );
}

/** Figures from the rollup, for whole days in [fromDay, toDay) that are rolled up and not dirty. */
export async function statsFromRollup(
  db: Queryable,
  accountId: number,
  groupBy: GroupBy,
  filter: StatsFilter,
  days: readonly string[],
): Promise<StatsRow[]> {
  if (days.length === 0) return [];
  return db.query<StatsRow>(
    `SELECT ${KEY[groupBy]} AS key, s.status, s.currency, sum(s.messages)::bigint AS messages,
       sum(s.parts)::bigint AS parts, sum(s.price)::text AS price, sum(s.clicks)::bigint AS clicks,
       sum(s.conversions)::bigint AS conversions
     FROM stats_daily s
     WHERE s.account_id = $1 AND s.day = ANY($8::date[]) AND ${FILTER}
     GROUP BY 1, 2, 3`,
    [accountId, ...filterParameters(groupBy, filter), days],
  );
}

/** Figures computed from the messages themselves, for the id ranges not covered by the rollup. */
export async function statsLive(
  db: Queryable,
  accountId: number,
  groupBy: GroupBy,
  filter: StatsFilter,
  ranges: readonly [string, string][],
): Promise<StatsRow[]> {
  if (ranges.length === 0) return [];
  const idRanges = (column: string): string =>
    ranges.map((_, i) => `${column} BETWEEN $${8 + 2 * i}::uuid AND $${9 + 2 * i}::uuid`).join(' OR ');
  const withTags = groupBy === 'tag' || filter.tag !== null;
  return db.query<StatsRow>(
    `SELECT ${KEY[groupBy]} AS key, s.status, s.currency, count(*)::bigint AS messages, sum(s.parts)::bigint AS parts,
       sum(s.price)::text AS price, sum(s.clicks)::bigint AS clicks, sum(s.conversions)::bigint AS conversions
     FROM (${perMessageSql(idRanges, withTags)}) s
     WHERE ${FILTER}
     GROUP BY 1, 2, 3`,
    [accountId, ...filterParameters(groupBy, filter), ...ranges.flat()],
  );
}

export async function statsRolledUntil(db: Queryable): Promise<string | null> {
  const [row] = await db.query<{ day: string }>(
    "SELECT to_char(rolled_until, 'YYYY-MM-DD') AS day FROM stats_rollup_state",
  );
  return row?.day ?? null;
}

export async function statsDirtyDays(db: Queryable, accountId: number): Promise<Set<string>> {
  const rows = await db.query<{ day: string }>(
    "SELECT to_char(day, 'YYYY-MM-DD') AS day FROM stats_dirty_days WHERE account_id = $1",
    [accountId],
  );
  return new Set(rows.map((r) => r.day));
}

/**
 * Whether any account has a day in [fromDay, toDay) (YYYY-MM-DD; fromDay null: any before) whose messages changed
 * after its rollup and is counted live until the rollup redoes it: its messages must not go before.
 */
export async function statsDirtyBetween(db: Queryable, fromDay: string | null, toDay: string): Promise<boolean> {
  const [row] = await db.query<{ dirty: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM stats_dirty_days WHERE ($1::date IS NULL OR day >= $1::date) AND day < $2::date)
       AS dirty`,
    [fromDay, toDay],
  );
  return row!.dirty;
}

/**
 * For each UTC day of [firstDay, lastDay] that is rolled up and not dirty, how many of the account's outbound
 * messages created that day pass the filter (0 for a day without any): the days a message list can count from the
 * rollup instead of reading their messages. One statement, so the rollup state, dirty days and rows agree.
 */
export async function statsCleanDayCounts(
  db: Queryable,
  accountId: number,
  filter: RollupFilter,
  firstDay: string,
  lastDay: string,
): Promise<Map<string, number>> {
  const rows = await db.query<{ day: string; messages: string }>(
    `WITH days AS (
       SELECT g::date AS day
       FROM stats_rollup_state r, generate_series($2::date, least($3::date, r.rolled_until), interval '1 day') g
       WHERE NOT EXISTS (SELECT 1 FROM stats_dirty_days x WHERE x.account_id = $1 AND x.day = g::date)
     )
     SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(sum(s.messages), 0)::bigint AS messages
     FROM days d
     LEFT JOIN stats_daily s ON s.account_id = $1 AND s.day = d.day AND s.tag = coalesce($4::text, '')
       AND ($5::text IS NULL OR s.channel_type = $5) AND ($6::text IS NULL OR s.sender_name = $6)
       AND ($7::text IS NULL OR s.status = $7)
       AND ($8::text IS NULL OR (CASE WHEN s.traffic_type = '' THEN 'SERVICE' ELSE s.traffic_type END) = $8)
       AND ($9::boolean IS NULL OR (s.cascade_step <= 1) = $9)
     GROUP BY d.day`,
    [
      accountId,
      firstDay,
      lastDay,
      filter.tag,
      filter.channelType,
      filter.senderName,
      filter.status,
      filter.trafficType,
      filter.root,
    ],
  );
  return new Map(rows.map((r) => [r.day, Number(r.messages)]));
}
