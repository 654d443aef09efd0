import os from 'node:os';
import type pg from 'pg';
import { rollUpStatistics } from '../src/statistics/rollup.js';
import { type BenchFigure, type BenchSchema, percentile } from './lib.js';
import { startSeeded } from './statistics.js';

const DAY_MS = 86_400_000;
const RUNS = 21;
/** A page found by a key (one destination, one uuid): the target of issue 18. */
const KEYED_MS = 20;
/** Any other filtered page with its total. */
const FILTERED_MS = 150;

/**
 * The message list (GET /api/v1/message, 100 rows a page with its total) on `messages` outbound messages of one
 * account over 30 days plus a quarter as many of another account's: the statistics benchmark's seed, rolled up as
 * the workers' job does every minute, then vacuumed as autovacuum does after a bulk load. Each search's median and
 * p95 of RUNS calls through the HTTP API against its target (20 ms found by a key, 150 ms otherwise), the load
 * beside it; then the bytes each stored message takes: the table (heap and TOAST) and each of its indexes, the
 * biggest first.
 */
export async function benchList(options: { schema: BenchSchema; messages: number }): Promise<BenchFigure[]> {
  const seeded = await startSeeded(options.schema, options.messages, 30, 'bench list');
  const { api, client, db, account, now } = seeded;
  try {
    const started = performance.now();
    await rollUpStatistics(db, new Date(now));
    await client.query('VACUUM ANALYZE messages');
    process.stdout.write(
      `  seeded ${options.messages} + ${options.messages / 4} messages in ${seeded.seconds.toFixed(0)} s, rolled up ` +
        `and vacuumed in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );

    // A message from the middle of the history: its destination and its uuid.
    const [middle] = (
      await client.query<{ id: string; destination: string }>(
        'SELECT id, destination FROM messages WHERE account_id = $1 ORDER BY id OFFSET $2 LIMIT 1',
        [account.id, Math.floor(options.messages / 2)],
      )
    ).rows;
    const day = (daysAgo: number): string => new Date(now - daysAgo * DAY_MS).toISOString().slice(0, 19);
    const searches: [label: string, query: string, target: number][] = [
      ['one destination', `destination=${middle!.destination}`, KEYED_MS],
      ['one uuid', `message_uuid=${middle!.id}`, KEYED_MS],
      ['sender name and tag', 'sender_name=Sender2&tags=vip', FILTERED_MS],
      ['status', 'status=undelivered', FILTERED_MS],
      ['7-day range', `time_from=${day(10)}Z&time_to=${day(3)}Z`, FILTERED_MS],
      ['no filter', '', FILTERED_MS],
      ['no filter, page 50', 'page=50', FILTERED_MS],
    ];
    const figures: BenchFigure[] = [];
    for (const [label, query, target] of searches) {
      let total = 0;
      const call = async (): Promise<number> => {
        const at = performance.now();
        const reply = await fetch(`${api.url}/api/v1/message?${query}`, {
          headers: { authorization: `Basic ${account.tokens.traffic}` },
        });
        const body = (await reply.json()) as { items?: unknown[]; total?: number };
        if (reply.status !== 200 || !body.items)
          throw new Error(`message list answered ${reply.status}: ${JSON.stringify(body).slice(0, 200)}`);
        total = body.total!;
        return performance.now() - at;
      };
      await call();
      const load = os.loadavg()[0]!;
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await call());
      times.sort((a, b) => a - b);
      figures.push({
        name: `message list, ${label}`,
        value: percentile(times, 50),
        unit: 'ms',
        target: { op: '<=', value: target },
        note:
          `median of ${RUNS}, p95 ${percentile(times, 95).toFixed(0)} ms, total ${total}, ` +
          `${options.messages} messages, load ${load.toFixed(1)}`,
      });
    }
    figures.push(...(await storageFigures(client, options.messages * 1.25)));
    return figures;
  } finally {
    await seeded.close();
  }
}

/** Bytes per stored message: the heap of messages' partitions, their TOAST and each index, the biggest first. */
async function storageFigures(client: pg.Client, rows: number): Promise<BenchFigure[]> {
  const parts = (
    await client.query<{ name: string; bytes: string }>(
      `WITH leaves AS (SELECT relid FROM pg_partition_tree('messages') WHERE isleaf)
       SELECT 'heap' AS name, sum(pg_relation_size(relid)) AS bytes FROM leaves
       UNION ALL
       SELECT 'TOAST', sum(coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0))
       FROM leaves l JOIN pg_class c ON c.oid = l.relid
       UNION ALL
       SELECT 'index ' || c.relname, (SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree(c.oid))
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'messages'::regclass`,
    )
  ).rows.map((r) => ({ name: r.name, perMessage: Number(r.bytes) / rows }));
  parts.sort((a, b) => b.perMessage - a.perMessage);
  const whole = parts.reduce((sum, p) => sum + p.perMessage, 0);
  return [
    {
      name: 'bytes per stored message',
      value: whole,
      unit: 'B',
      note: `messages: heap, TOAST and ${parts.length - 2} indexes, ${rows} rows`,
    },
    ...parts
      .filter((p) => p.perMessage > 0)
      .map((p) => ({
        name: `  ${p.name}`,
        value: p.perMessage,
        unit: 'B',
        note: `${((p.perMessage / whole) * 100).toFixed(0)} %`,
      })),
  ];
}
