import pg from 'pg';

/**
 * Where a run's WAL and write transactions go (issue 35): per statement (pg_stat_statements), per relation and
 * index (pg_walinspect's records between the run's two WAL positions, by the relation each block belongs to), per
 * kind of record, and each table's inserts, updates (HOT or not) and deletes. Printed, not a figure: it says what to
 * cut, the roles benchmark's figures say whether it was cut. Needs a server started with pg_stat_statements preloaded
 * (BREAKDOWN_SETTINGS).
 */

/** What the benchmark's own server is started with when a breakdown is asked for. */
export const BREAKDOWN_SETTINGS: Readonly<Record<string, string>> = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.max': '10000',
  // Planning is counted apart from execution: a statement planned for its parameters pays it on every call.
  'pg_stat_statements.track_planning': 'on',
};

export interface WalBreakdown {
  /** Prints the breakdown of what happened since `start`, per message. */
  stop(messages: number): Promise<string>;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

interface TableCounts {
  ins: number;
  upd: number;
  hot: number;
  del: number;
}

async function tableCounts(client: pg.Client, schema: string): Promise<Map<string, TableCounts>> {
  const rows = await client.query<{ relname: string; ins: string; upd: string; hot: string; del: string }>(
    `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del
     FROM pg_stat_user_tables WHERE schemaname = $1`,
    [schema],
  );
  return new Map(
    rows.rows.map((r) => [
      r.relname,
      { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) },
    ]),
  );
}

async function indexScans(
  client: pg.Client,
  schema: string,
): Promise<Map<string, { scans: number; read: number; size: string }>> {
  const rows = await client.query<{ name: string; scans: string; read: string; size: string }>(
    `SELECT relname || '.' || indexrelname AS name, idx_scan::text AS scans, idx_tup_read::text AS read,
            pg_size_pretty(pg_relation_size(indexrelid)) AS size
     FROM pg_stat_user_indexes WHERE schemaname = $1`,
    [schema],
  );
  return new Map(rows.rows.map((r) => [r.name, { scans: Number(r.scans), read: Number(r.read), size: r.size }]));
}

/**
 * Starts a breakdown on the database at `url`: its statement counters reset, its WAL position and the counts of the
 * tables of `schema` (where the run's Herald keeps its tables: a benchmark's own schema, or public) read.
 */
export async function startWalBreakdown(url: string, schema = 'public'): Promise<WalBreakdown> {
  const start = await withClient(url, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    await client.query('SELECT pg_stat_statements_reset()');
    const lsn = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
    return { lsn, tables: await tableCounts(client, schema), scans: await indexScans(client, schema) };
  });
  return {
    stop: (messages) =>
      withClient(url, async (client) => {
        // Statistics of a backend are published within a second of its going idle.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const end = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
        const per = (n: number | string): string => (Number(n) / messages).toFixed(3);
        const bytes = (n: number | string): string => (Number(n) / messages).toFixed(0);
        const lines: string[] = [];

        const total = Number(
          (await client.query<{ b: string }>('SELECT pg_wal_lsn_diff($2, $1)::text AS b', [start.lsn, end])).rows[0]!.b,
        );
        lines.push(`WAL ${total} bytes, ${bytes(total)} per message (${start.lsn} .. ${end})`);

        // By relation (tables, indexes, TOAST), from each record's block references; a record that touches blocks of
        // several relations (an update moving a row between pages) is counted for each (its length shared equally).
        const records = await client.query<{ rel: string | null; records: string; bytes: string; fpi: string }>(
          `WITH r AS (
             SELECT record_length + fpi_length AS len, fpi_length,
                    array(SELECT m[1] FROM regexp_matches(coalesce(block_ref, ''), 'rel \\d+/\\d+/(\\d+)', 'g') AS m)
                      AS rels
             FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
           ), u AS (
             SELECT rel, len::float8 / greatest(cardinality(rels), 1) AS len, fpi_length::float8 AS fpi
             FROM r LEFT JOIN LATERAL unnest(CASE WHEN cardinality(rels) = 0 THEN ARRAY[NULL] ELSE rels END) AS rel
               ON true
           )
           SELECT coalesce(c.relname,
                           CASE WHEN u.rel IS NULL THEN '(no relation: commits, ...)' ELSE 'oid ' || u.rel END) AS rel,
                  count(*)::text AS records, sum(u.len)::bigint::text AS bytes, sum(u.fpi)::bigint::text AS fpi
           FROM u LEFT JOIN pg_class c ON c.relfilenode = u.rel::oid
           GROUP BY 1 ORDER BY sum(u.len) DESC LIMIT 30`,
          [start.lsn, end],
        );
        lines.push('', 'WAL by relation (bytes per message, records per message, full-page image bytes per message):');
        for (const r of records.rows)
          lines.push(
            `  ${bytes(r.bytes).padStart(6)} B  ${per(r.records).padStart(7)} rec  fpi ${bytes(r.fpi)} B  ${r.rel}`,
          );

        const kinds = await client.query<{ resource_manager: string; count: string; combined_size: string }>(
          `SELECT "resource_manager/record_type" AS resource_manager, count::text, combined_size::text
           FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) AS w
           WHERE w.count > 0 ORDER BY w.combined_size DESC LIMIT 20`,
          [start.lsn, end],
        );
        lines.push('', 'WAL by record type (bytes per message, records per message):');
        for (const k of kinds.rows)
          lines.push(
            `  ${bytes(k.combined_size).padStart(6)} B  ${per(k.count).padStart(7)} rec  ${k.resource_manager}`,
          );

        // Row locks (Heap/LOCK) by their flags and whether their transaction updated any row: a transaction that
        // locked rows and updated none took them for nothing (a claim's cut, an outcome that did not apply).
        const locks = await client.query<{ kind: string; records: string; bytes: string }>(
          `WITH r AS (
             SELECT xid, record_type, record_length + fpi_length AS len, description
             FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) WHERE resource_manager = 'Heap'
           ), l AS (
             SELECT l.len, l.description, u.xid IS NOT NULL AS tx_updated
             FROM r l LEFT JOIN (SELECT DISTINCT xid FROM r WHERE record_type LIKE 'UPDATE%') u ON u.xid = l.xid
             WHERE l.record_type = 'LOCK'
           )
           SELECT CASE WHEN tx_updated THEN 'in a transaction that updated rows'
                  ELSE 'in a transaction that updated none' END
                  || ': ' || regexp_replace(description, 'off \\d+: xid \\d+: ', '') AS kind,
                  count(*)::text AS records, sum(len)::bigint::text AS bytes
           FROM l GROUP BY 1 ORDER BY count(*) DESC LIMIT 10`,
          [start.lsn, end],
        );
        lines.push('', 'Row locks (Heap/LOCK) by kind (bytes per message, records per message):');
        for (const k of locks.rows)
          lines.push(`  ${bytes(k.bytes).padStart(6)} B  ${per(k.records).padStart(7)} rec  ${k.kind}`);

        const statements = await client.query<{
          calls: string;
          rows: string;
          wal_bytes: string;
          wal_records: string;
          wal_fpi: string;
          query: string;
        }>(
          `SELECT calls::text, rows::text, wal_bytes::text, wal_records::text, wal_fpi::text,
                  regexp_replace(query, '\\s+', ' ', 'g') AS query
           FROM pg_stat_statements AS s WHERE s.wal_bytes > 0 ORDER BY s.wal_bytes DESC LIMIT 25`,
        );
        lines.push('', 'WAL by statement (bytes per message, calls per 1000 messages, rows per call):');
        for (const s of statements.rows)
          lines.push(
            `  ${bytes(s.wal_bytes).padStart(6)} B  ${((Number(s.calls) * 1000) / messages).toFixed(1).padStart(7)} ` +
              `calls  ${(Number(s.rows) / Math.max(Number(s.calls), 1)).toFixed(1).padStart(6)} rows/call  ` +
              `${s.query.slice(0, 160)}`,
          );

        const timed = await client.query<{
          calls: string;
          plans: string;
          plan_ms: string;
          exec_ms: string;
          plan_min: string;
          plan_max: string;
          query: string;
        }>(
          `SELECT calls::text, plans::text, total_plan_time::text AS plan_ms, total_exec_time::text AS exec_ms,
                  min_plan_time::text AS plan_min, max_plan_time::text AS plan_max,
                  regexp_replace(query, '\\s+', ' ', 'g') AS query
           FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC LIMIT 15`,
        );
        const us = (ms: string) => ((Number(ms) * 1000) / messages).toFixed(2);
        lines.push(
          '',
          'Server time by statement (us per message planning, executing; calls per 1000 messages; ' +
            "of all its calls, those planned (a generic plan kept plans few); a plan's time, least and most):",
        );
        const ms = (value: string) => Number(value).toFixed(1);
        for (const s of timed.rows)
          lines.push(
            `  ${us(s.plan_ms).padStart(7)} ${us(s.exec_ms).padStart(7)} us  ` +
              `${((Number(s.calls) * 1000) / messages).toFixed(1).padStart(7)} calls  ` +
              `${`${s.plans}/${s.calls} planned`.padStart(16)}  ` +
              `${`${ms(s.plan_min)}-${ms(s.plan_max)} ms`.padStart(13)}  ${s.query.slice(0, 120)}`,
          );

        const after = await tableCounts(client, schema);
        lines.push('', 'Row changes by table (per message): inserted, updated (of which HOT), deleted:');
        const changed = [...after]
          .map(([name, a]) => {
            const b = start.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
            return { name, ins: a.ins - b.ins, upd: a.upd - b.upd, hot: a.hot - b.hot, del: a.del - b.del };
          })
          .filter((t) => t.ins + t.upd + t.del > 0)
          .sort((x, y) => y.ins + y.upd + y.del - (x.ins + x.upd + x.del));
        for (const t of changed)
          lines.push(
            `  ${t.name.padEnd(28)} ins ${per(t.ins)}  upd ${per(t.upd)} (HOT ${per(t.hot)})  del ${per(t.del)}`,
          );

        // The indexes of the tables the run changed: each is written on every insert and non-HOT update.
        const touched = new Set(changed.map((t) => t.name));
        lines.push(
          '',
          'Indexes of the changed tables (scans and entries read per message during the run, size at the end):',
        );
        for (const [name, i] of await indexScans(client, schema)) {
          if (!touched.has(name.split('.')[0]!)) continue;
          const before = start.scans.get(name);
          const scans = per(i.scans - (before?.scans ?? 0));
          lines.push(`  ${name}: ${scans} scans, ${per(i.read - (before?.read ?? 0))} read, ${i.size}`);
        }

        // Each version of a message's row is written whole (no update of it is HOT): its width is paid four times.
        lines.push('', ...(await messageWidths(client, schema)));
        return lines.join('\n');
      }),
  };
}

/**
 * The stored width of a message's row by column (pg_column_size, the bytes of each value as stored, averaged over the
 * messages of `schema`: the run's), largest first, and of the whole row's data.
 */
async function messageWidths(client: pg.Client, schema: string): Promise<string[]> {
  const columns = (
    await client.query<{ attname: string }>(
      `SELECT attname FROM pg_attribute
       WHERE attrelid = format('%I.messages', $1::text)::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      [schema],
    )
  ).rows.map((r) => r.attname);
  const widths = (
    await client.query<Record<string, string | null>>(
      `SELECT count(*)::text AS n, avg(pg_column_size(m.*))::numeric(8, 1)::text AS "(row)",
         ${columns.map((c) => `avg(coalesce(pg_column_size(m.${c}), 0))::numeric(8, 1)::text AS ${c}`).join(', ')}
       FROM ${client.escapeIdentifier(schema)}.messages m`,
    )
  ).rows[0]!;
  const lines = [`A message's row, stored bytes by column (average over ${widths.n} messages):`];
  for (const [name, width] of Object.entries(widths)
    .filter(([name, width]) => name !== 'n' && Number(width) > 0)
    .sort(([, a], [, b]) => Number(b) - Number(a)))
    lines.push(`  ${String(width).padStart(7)} B  ${name}`);
  return lines;
}
