import type { Queryable } from '../db/db.js';

/** One refusal (or a message a monitor-mode setting let through) to count. */
export interface Refusal {
  readonly channelType: string;
  readonly code: number;
  readonly monitored?: boolean;
}

/** Adds refusals to the account's counts of the day (UTC): one statement for a batch's refusals. */
export async function refusalCountAdd(
  db: Queryable,
  accountId: number,
  refusals: readonly Refusal[],
  now: Date,
): Promise<void> {
  if (refusals.length === 0) return;
  const counts = new Map<string, { refusal: Refusal; n: number }>();
  for (const r of refusals) {
    const key = `${r.channelType}\u0000${r.code}\u0000${r.monitored === true}`;
    const entry = counts.get(key);
    if (entry) entry.n++;
    else counts.set(key, { refusal: r, n: 1 });
  }
  const entries = [...counts.values()];
  await db.query(
    `INSERT INTO refusal_counts (account_id, day, channel_type, code, monitored, count)
     SELECT $1, ($2::timestamptz AT TIME ZONE 'UTC')::date, channel_type, code, monitored, n
     FROM unnest($3::text[], $4::int[], $5::boolean[], $6::bigint[]) AS r (channel_type, code, monitored, n)
     ON CONFLICT (account_id, day, channel_type, code, monitored)
     DO UPDATE SET count = refusal_counts.count + EXCLUDED.count`,
    [
      accountId,
      now,
      entries.map((e) => e.refusal.channelType),
      entries.map((e) => e.refusal.code),
      entries.map((e) => e.refusal.monitored === true),
      entries.map((e) => e.n),
    ],
  );
}

export interface RefusalCountRow {
  day: string;
  channel_type: string;
  code: number;
  monitored: boolean;
  count: number;
}

/** The account's counts by day, channel and code over [from, to] (dates, UTC). */
export async function refusalCountList(
  db: Queryable,
  accountId: number,
  from: string,
  to: string,
): Promise<RefusalCountRow[]> {
  return db.query<RefusalCountRow>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, channel_type, code, monitored, count::int AS count
     FROM refusal_counts WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date
     ORDER BY day, channel_type, code, monitored`,
    [accountId, from, to],
  );
}
