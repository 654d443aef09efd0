import pg from 'pg';
import { Pool } from 'undici';
import { uuid7 } from '../src/util/uuid7.js';
import { type BenchFigure, type BenchSchema, percentile, startHeraldProcess, BENCH_ADMIN_TOKEN } from './lib.js';

export interface IngestOptions {
  readonly schema: BenchSchema;
  readonly seconds: number;
  readonly clients: number;
  readonly apiProcesses: number;
  readonly batch: number;
  /**
   * Stop list entries to fill before the run (the guards' run), half the operator's and half the account's, on
   * numbers the batches never send to (8 800...): every batch pays its lookup, none is refused.
   */
  readonly stopList?: number;
  /**
   * Destinations spread over the numbering plan, each request's its own (the guards' run: the flood filter and
   * pumping detection would refuse or hold the default 16 bodies' 16,000 numbers sent again and again).
   */
  readonly spread?: boolean;
  /** Run after each account is made, before the clients start (the guards' run sets its settings and lists here). */
  readonly prepare?: (account: { readonly id: number; readonly url: string }) => Promise<void>;
  /**
   * Accounts the clients send for, client i for account i mod `accounts` (default 1: every client for one account,
   * whose batches take turns on its balance).
   */
  readonly accounts?: number;
  /** Whether to measure the bare multi-row INSERT after (default true). */
  readonly bare?: boolean;
  /** More environment for the Herald processes. */
  readonly env?: Readonly<Record<string, string>>;
}

const SENDER = 'Bench';

/** An SMS batch like a client's: distinct Russian mobile numbers, a one-part text. */
function smsBatch(size: number, seed: number): Record<string, unknown>[] {
  return Array.from({ length: size }, (_, i) => ({
    channelType: 'SMS',
    senderName: SENDER,
    destination: `7916${String((seed * size + i) % 10_000_000).padStart(7, '0')}`,
    content: `Your code is ${String((seed * 7919 + i) % 10_000).padStart(4, '0')}. It is valid for 5 minutes.`,
    tags: ['bench'],
  }));
}

/** Bodies enough that no destination of a spread run comes back within it (300,000 numbers). */
const SPREAD_BODIES = 300;

/**
 * The x-th number of a spread run: codes 900-929 in turn, the subscriber part stepped far apart (300,000 of them fall
 * in some 14,000 ranges, never two of a batch in one).
 */
const spreadNumber = (x: number): string =>
  `79${String(x % 30).padStart(2, '0')}${String((x * 7_919_003 + 1_234_567) % 10_000_000).padStart(7, '0')}`;

/**
 * A batch to numbers spread over the Russian mobile plan: request `seed`'s numbers fall in different ranges (the
 * number without its last 4 digits), as a real mailing's do.
 */
function spreadBatch(size: number, seed: number): Record<string, unknown>[] {
  return smsBatch(size, seed).map((message, i) => ({
    ...message,
    destination: spreadNumber(seed * size + i),
  }));
}

/**
 * Ingest: `clients` concurrent clients post 1000-message SMS batches to Herald (separate processes, PostgreSQL)
 * for `seconds`; then, in the same database, a bare multi-row INSERT of the same rows into the same table by as
 * many connections, as the ceiling Herald is compared with.
 */
export async function benchIngest(options: IngestOptions): Promise<BenchFigure[]> {
  const env = {
    DATABASE_URL: options.schema.url,
    HERALD_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    HERALD_PORT: '0',
    HERALD_DB_POOL_SIZE: '8',
    ...options.env,
  };
  // The first process migrates; the others find the schema ready.
  const first = await startHeraldProcess('api', env);
  const processes = [first];
  for (let i = 1; i < options.apiProcesses; i++) processes.push(await startHeraldProcess('api', env));
  try {
    const admin = new Pool(first.url);
    const accounts: { id: number; tokens: { traffic: string } }[] = [];
    for (let i = 0; i < (options.accounts ?? 1); i++) {
      const account = (await (
        await admin.request({
          method: 'POST',
          path: '/admin/v1/accounts',
          headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `bench ${i + 1}` }),
        })
      ).body.json()) as { id: number; tokens: { traffic: string } };
      await (
        await admin.request({
          method: 'POST',
          path: `/admin/v1/accounts/${account.id}/sender-names`,
          headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channelType: 'SMS', name: SENDER }),
        })
      ).body.dump();
      accounts.push(account);
    }
    await admin.close();
    // The account half of the stop list is the first account's; the operator's half applies to every account.
    if (options.stopList) await fillStopList(options.schema.url, accounts[0]!.id, options.stopList);
    for (const account of accounts) await options.prepare?.({ id: account.id, url: first.url });

    const bodies = options.spread
      ? Array.from({ length: SPREAD_BODIES }, (_, seed) => JSON.stringify(spreadBatch(options.batch, seed)))
      : Array.from({ length: 16 }, (_, seed) => JSON.stringify(smsBatch(options.batch, seed)));
    const http = await runClients(
      processes.map((p) => p.url),
      accounts.map((a) => a.tokens.traffic),
      bodies,
      options,
    );
    // Every accepted message must be in the table: a benchmark of answers that stored nothing would be worthless.
    const stored = await countMessages(
      options.schema.url,
      accounts.map((a) => a.id),
    );
    if (stored !== http.acceptedTotal) throw new Error(`ingest: ${http.acceptedTotal} accepted but ${stored} stored`);
    const figures: BenchFigure[] = [
      {
        name: 'ingest: messages accepted',
        value: http.messagesPerSecond,
        unit: 'msg/s',
        target: { op: '>=', value: 25_000 },
        note:
          `${options.clients} clients, ${options.accounts ?? 1} account(s), ${options.batch}-message SMS batches, ` +
          `${options.apiProcesses} api process(es), ${options.seconds} s`,
      },
      { name: 'ingest: request latency p50', value: http.p50, unit: 'ms' },
      { name: 'ingest: request latency p99', value: http.p99, unit: 'ms' },
    ];
    if (options.bare === false) return figures;
    const bare = await runBareInsert(options, accounts[0]!.id);
    const ratio = http.messagesPerSecond / bare.rowsPerSecond;
    return [
      ...figures,
      {
        name: 'ingest: bare multi-row INSERT',
        value: bare.rowsPerSecond,
        unit: 'rows/s',
        note: `same rows, same table, ${options.clients} connections`,
      },
      {
        name: 'ingest: accepted / bare insert',
        value: ratio * 100,
        unit: '%',
        target: { op: '>=', value: 40 },
      },
    ];
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
  }
}

async function runClients(
  urls: readonly string[],
  tokens: readonly string[],
  bodies: readonly string[],
  options: IngestOptions,
): Promise<{ messagesPerSecond: number; p50: number; p99: number; acceptedTotal: number }> {
  const pools = urls.map((url) => new Pool(url, { connections: options.clients, pipelining: 1 }));
  const latencies: number[] = [];
  let accepted = 0;
  let acceptedTotal = 0;
  let failures = 0;
  let measuring = false;
  const warmupMs = 2000;
  const start = performance.now();
  const end = start + warmupMs + options.seconds * 1000;

  const client = async (index: number): Promise<void> => {
    const pool = pools[index % pools.length]!;
    const token = tokens[index % tokens.length]!;
    let n = index;
    while (performance.now() < end) {
      const body = bodies[n++ % bodies.length]!;
      const t0 = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: '/api/v1/message',
        headers: { authorization: `Basic ${token}`, 'content-type': 'application/json' },
        body,
      });
      const text = await response.body.text();
      const t1 = performance.now();
      const ok = response.statusCode === 200 && text.startsWith('{"errors":false');
      if (ok) acceptedTotal += options.batch;
      if (!measuring) continue;
      if (ok) {
        accepted += options.batch;
        latencies.push(t1 - t0);
      } else {
        failures++;
        if (failures === 1)
          process.stderr.write(`ingest: unexpected answer ${response.statusCode}: ${text.slice(0, 300)}\n`);
      }
    }
  };
  const warmup = setTimeout(() => {
    measuring = true;
  }, warmupMs);
  const measureStart = start + warmupMs;
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  clearTimeout(warmup);
  const elapsed = (performance.now() - measureStart) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  if (failures > 0) throw new Error(`ingest: ${failures} requests failed`);
  latencies.sort((a, b) => a - b);
  return {
    messagesPerSecond: accepted / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    acceptedTotal,
  };
}

/** The same rows as Herald stores them, by a plain parameterised multi-row INSERT. */
async function runBareInsert(options: IngestOptions, accountId: number): Promise<{ rowsPerSecond: number }> {
  const columns = [
    'account_id',
    'id',
    'created_at',
    'channel_type',
    'sender_name',
    'destination',
    'country',
    'content',
    'tags',
    'total_parts',
    'status',
    'status_at',
    'planned_send_at',
  ];
  const rows = smsBatch(options.batch, 99);
  const placeholders = rows
    .map((_, r) => `(${columns.map((_c, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
    .join(', ');
  const sql = `INSERT INTO messages (${columns.join(', ')}) VALUES ${placeholders}`;
  const pool = new pg.Pool({ connectionString: options.schema.url, max: options.clients });
  let inserted = 0;
  const seconds = Math.max(5, Math.round(options.seconds / 2));
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const now = new Date();
      const params: unknown[] = [];
      for (const row of rows) {
        params.push(
          accountId,
          uuid7(),
          now,
          'SMS',
          SENDER,
          row.destination,
          'RU',
          JSON.stringify(row.content),
          ['bench'],
          1,
          'sending',
          now,
          now,
        );
      }
      await pool.query(sql, params);
      inserted += rows.length;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: options.clients }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  await pool.end();
  return { rowsPerSecond: inserted / elapsed };
}

/** Stop list entries on 7926... numbers (the batches send to 7916...), in one statement. */
async function fillStopList(url: string, accountId: number, entries: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO stop_list_entries (account_id, number, source, created_at)
       SELECT CASE WHEN n % 2 = 0 THEN $1::bigint END, '7800' || lpad(n::text, 7, '0'),
         CASE WHEN n % 2 = 0 THEN 'api' ELSE 'operator' END, now()
       FROM generate_series(1, $2::int) AS n`,
      [accountId, entries],
    );
    await client.query('ANALYZE stop_list_entries');
  } finally {
    await client.end();
  }
}

async function countMessages(url: string, accountIds: readonly number[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query('SELECT count(*)::int AS n FROM messages WHERE account_id = ANY($1)', [
      accountIds,
    ]);
    return result.rows[0].n as number;
  } finally {
    await client.end();
  }
}
