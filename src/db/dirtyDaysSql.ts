/**
 * A CTE that marks the (account, day) of changed messages as dirty when that day has already been rolled up,
 * so that statistics count it live until the rollup is redone. `source` needs account_id and created_at.
 *
 * statistics/ owns `stats_dirty_days` and imports the writers of what it counts (messages, clicks, conversions);
 * they mark days in their own statements with this fragment, which therefore sits below them all.
 */
export function dirtyDaysCte(source: string, name = 'dirty_days'): string {
  return `${name} AS (
       INSERT INTO stats_dirty_days (account_id, day)
       SELECT DISTINCT s.account_id, (s.created_at AT TIME ZONE 'UTC')::date
       FROM ${source} s
       -- Read once (an InitPlan), not once a changed row: joined, the table was scanned again for every row.
       WHERE (s.created_at AT TIME ZONE 'UTC')::date <= (SELECT max(rolled_until) FROM stats_rollup_state)
       ON CONFLICT DO NOTHING
     )`;
}
