import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Pool } from 'undici';
import type { ConnectorConfig, HttpConnectorConfig } from '../src/connectors/index.js';
import { startEmbeddedSimulators } from '../src/simulators/embeddedSimulators.js';
import {
  type BenchFigure,
  type BenchSchema,
  postgresCpuSeconds,
  type HeraldProcess,
  percentile,
  batchBody,
  postBatches,
  startHeraldProcess,
  watchCpu,
  BENCH_ADMIN_TOKEN,
  BENCH_DATABASE_URL,
  benchHeraldEnv,
} from './lib.js';
import { BEHIND_PGBOUNCER } from '../test/ha/servers.js';
import { startWalBreakdown } from './walBreakdown.js';

/** The bot of the TELEGRAM runs, known to the benchmark's Telegram simulator by this token. */
const BENCH_BOT = { name: 'bench_bot', token: '1000000002:HeraldBenchBotOfTheTelegramSimulator00' } as const;

export interface EndToEndOptions {
  readonly schema: BenchSchema;
  readonly messages: number;
  readonly clients: number;
  readonly delayMs: number;
  /** One process with role all, or an api process and a worker process. */
  readonly split: boolean;
  /** Each message asks for its `delivered` callback; the run ends when the last one has arrived. */
  readonly callbacks: boolean;
  /**
   * TELEGRAM: texts over the Bot API to the Telegram simulator; VK: texts in Herald's provider adapter format to the
   * provider simulator, each delivered then read (two signed status webhooks); SMS over SMPP by default.
   */
  readonly channel?: 'SMS' | 'TELEGRAM' | 'VK';
  /** VK through the built-in `vk` connector instead of the declarative one of the profile herald-vk (the default). */
  readonly builtInVk?: boolean;
  /** A soak: Herald's resident memory is sampled through the run and reported with its growth after warm-up. */
  readonly soak?: boolean;
  /** Herald's DATABASE_URL when not the schema's own (a pooler in front of it); the benchmark reads the schema's. */
  readonly heraldUrl?: string;
  /** When split: how many api processes (the clients spread over them) and worker processes; 1 each by default. */
  readonly apiProcesses?: number;
  readonly workerProcesses?: number;
  /**
   * Readies the schema before the first POST, Herald running and the account made (bench/routing.ts: a route table
   * and a portability base): given the schema's pool and the first api process's URL.
   */
  readonly prepare?: (db: pg.Pool, heraldUrl: string) => Promise<void>;
  /**
   * How the messages come in, instead of 1000-message POSTs to /api/v1/message from `clients` clients
   * (bench/smppServer.ts: submit_sm over a client's binds to Herald's SMPP server).
   */
  readonly intake?: Intake;
  /**
   * Watches the run: called with Herald's processes just before the first POST; its `stop` when the last message is
   * delivered (and called back), while the processes still run. Its figures follow the run's own.
   */
  readonly observe?: (processes: readonly HeraldRole[]) => RunObserver | Promise<RunObserver>;
  /**
   * 1000-message batches sent, delivered and called back (through the intake, when there is one) before the run is
   * timed and watched (BENCH_E2E_WARMUP): what a fresh process pays once (each pooled connection's first plans from
   * cold caches, V8 compiling the code on its first calls) left out of the figures, whose notes say so. None by
   * default: a fresh process's figures.
   */
  readonly warmUp?: number;
}

/** What watches a run (EndToEndOptions.observe): stopped when the last message is delivered. */
export interface RunObserver {
  stop(messages: number, seconds: number): Promise<BenchFigure[]>;
}

/**
 * Another way in for the run's messages: `env` for Herald's processes, and `send`, started when the POSTs would be,
 * which takes in `messages` messages of the account (destinations `7916` + 6 digits + `0`, sender `senderName`) and
 * resolves once they are all in; the run then waits until every one is delivered. `started` is called when the first
 * message leaves: the run is timed from there, as the POSTs' runs are from their first POST (not from starting a
 * client process and binding, which an HTTP client's connection pool does not pay).
 */
export interface Intake {
  readonly env: Readonly<Record<string, string>>;
  send(run: {
    heraldUrl: string;
    trafficToken: string;
    senderName: string;
    messages: number;
    /** The first message's number (its destination): a warm-up's are numbered past the run's. */
    first: number;
    /** The messages are the run's warm-up (EndToEndOptions.warmUp), not the run. */
    warmingUp: boolean;
    started: () => void;
  }): Promise<void>;
}

/** One Herald process of a run and its role. */
export interface HeraldRole {
  readonly role: 'all' | 'api' | 'worker';
  readonly pid: number;
}

const SENDER = 'Bench';

/**
 * End to end: Herald (one process, role all, PostgreSQL) takes `messages` SMS in 1000-message batches from
 * `clients` concurrent clients and sends them over SMPP to the SMSC simulator (another process's socket: the
 * simulator runs in this benchmark process), which answers every one with a delivery receipt after `delayMs`.
 * The figure is messages per second from the first POST until the last message is `delivered` in the database;
 * latencies are accept-to-delivered per message, from the database's own times.
 */
export async function benchEndToEnd(options: EndToEndOptions): Promise<BenchFigure[]> {
  const channel = options.channel ?? 'SMS';
  const simulators = await startEmbeddedSimulators({
    delayMs: options.delayMs,
    window: 1000,
    mps: 100_000,
    telegramBots: { [BENCH_BOT.token]: BENCH_BOT.name },
  });
  simulators.smsc.recordSubmissions(false);
  simulators.providers.recordRequests(false);
  simulators.telegram.bot.recordSent(false);
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-bench-'));
  const configPath = path.join(dir, 'herald.json');
  const connectors = simulators.configFile.connectors
    .filter((c) =>
      channel === 'SMS' ? c.type === 'smpp' : channel === 'VK' ? c.id === 'sim-vk' : c.type === 'telegram-bot',
    )
    .map((c) => (options.builtInVk && c.id === 'sim-vk' ? builtInVk(c as HttpConnectorConfig) : c));
  writeFileSync(
    configPath,
    JSON.stringify({
      connectors,
      routes: simulators.configFile.routes
        .filter((r) => r.channel === channel)
        .map((r) => ({ ...r, connectors: r.connectors.filter((id) => connectors.some((c) => c.id === id)) })),
    }),
  );
  const receiver = options.callbacks ? await startCountingReceiver() : undefined;
  const env = {
    HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
    ...benchHeraldEnv(options.heraldUrl ?? options.schema.url, configPath),
    // Another way to the schema is PgBouncer's (bench/pgbouncer.ts).
    ...(options.heraldUrl ? BEHIND_PGBOUNCER : {}),
    ...options.intake?.env,
  };
  const apis: HeraldProcess[] = [];
  const workers: HeraldProcess[] = [];
  // Its connections kept however long a run's quiet lasts (bench/bursts.ts counts the server's connections).
  const db = new pg.Pool({ connectionString: options.schema.url, max: 2, idleTimeoutMillis: 0 });
  try {
    // One by one: each applies (or finds applied) the migrations at start-up.
    for (let i = 0; i < (options.split ? (options.apiProcesses ?? 1) : 1); i++)
      apis.push(await startHeraldProcess(options.split ? 'api' : 'all', env));
    for (let i = 0; i < (options.split ? (options.workerProcesses ?? 1) : 0); i++)
      workers.push(await startHeraldProcess('worker', env, channel === 'SMS' ? /SMPP session bound/ : undefined));
    const herald = apis[0]!;
    if (channel === 'VK') {
      // Where the provider simulator posts its status reports: the route of the connector's kind.
      const vk = connectors[0]!;
      const secret = vk.type === 'http' ? vk.secrets!.WEBHOOK! : (vk as { webhookSecret: string }).webhookSecret;
      const route = vk.type === 'http' ? `/webhooks/http/${vk.id}` : `/webhooks/${vk.id}`;
      simulators.providers.setWebhook('VK', { url: `${herald.url}${route}`, secret });
    }
    // The clients take turns over the api processes.
    const pools = apis.map((p) => new Pool(p.url, { connections: Math.ceil(options.clients / apis.length) }));
    const http = pools[0]!;
    const admin = async (p: string, body: unknown): Promise<any> => {
      const response = await http.request({
        method: 'POST',
        path: p,
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return response.body.json();
    };
    const account = await admin('/admin/v1/accounts', { name: 'bench e2e' });
    if (channel === 'VK') {
      const switched = await http.request({
        method: 'PATCH',
        path: `/admin/v1/accounts/${account.id}`,
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ channels: { VK: true } }),
      });
      if (switched.statusCode !== 200) throw new Error(`VK not switched on: ${await switched.body.text()}`);
      await switched.body.dump();
    }
    const senderName = channel === 'TELEGRAM' ? BENCH_BOT.name : SENDER;
    const name = await admin(`/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: channel,
      name: senderName,
    });
    if (channel === 'TELEGRAM') {
      const patched = await http.request({
        method: 'PATCH',
        path: `/admin/v1/sender-names/${name.id}`,
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ botToken: BENCH_BOT.token }),
      });
      if (patched.statusCode !== 200) throw new Error(`bot token refused: ${await patched.body.text()}`);
      await patched.body.dump();
    }
    const token = account.tokens.traffic as string;
    await options.prepare?.(db, herald.url);

    const batches = Math.ceil(options.messages / 1000);
    // Built as sent: a million messages' bodies held at once would weigh on the machine under test.
    const bodyOf = (b: number): string => batchBody(b, channel, senderName, receiver?.url);
    /**
     * `count` batches of 1000 in, from batch `from` on (their destinations' numbers): through the intake, or as POSTs
     * from `clients` clients; the POSTs' latencies (none through an intake). `started`: the intake's first message.
     */
    const sendIn = async (count: number, from: number, warmingUp: boolean, started: () => void): Promise<number[]> => {
      if (!options.intake) {
        return postBatches({
          pools,
          path: '/api/v1/message',
          token,
          clients: options.clients,
          batches: count,
          bodyOf: (b) => bodyOf(from + b),
        });
      }
      await options.intake.send({
        heraldUrl: herald.url,
        trafficToken: token,
        senderName,
        messages: count * 1000,
        first: from * 1000,
        warmingUp,
        started,
      });
      return [];
    };
    const warmUp = options.warmUp ?? 0;
    // Where the run's own messages and callback POSTs begin, by Herald's clock (it sets their created_at): after the
    // warm-up's last; none when there is no warm-up. The database's clock, on another host, could be off from it.
    let timedAfter: { messages: Date | null; posts: Date | null } = { messages: null, posts: null };
    if (warmUp > 0) {
      const receiptsBeforeWarmUp = simulators.smsc.receiptAckCount;
      // Numbered past the run's messages: the flood filter's rows of the run's destinations stay new to it.
      await sendIn(warmUp, batches, true, () => {});
      await untilDelivered({
        db,
        total: warmUp * 1000,
        callbacksReceived: receiver?.count,
        receiptsAcknowledged:
          channel === 'SMS' ? () => simulators.smsc.receiptAckCount - receiptsBeforeWarmUp : undefined,
      });
      const last = await db.query(
        `SELECT (SELECT max(created_at) FROM messages WHERE account_id = $1) AS messages,
           (SELECT max(created_at) FROM callback_deliveries WHERE account_id = $1) AS posts`,
        [account.id],
      );
      timedAfter = last.rows[0];
    }
    // The warm-up's messages, delivered and called back, are left out of the counts below.
    const callbacksBefore = receiver?.count() ?? 0;
    const receiptsBefore = simulators.smsc.receiptAckCount;
    const rss = options.soak ? sampleRss(herald.child.pid!, 250) : undefined;
    const cpu = [...apis, ...workers].map((p) => watchCpu(p.child.pid!));
    // Connected before the run is watched: the poll after the last POST opens no connection inside it.
    await db.query('SELECT 1');
    const observer = await options.observe?.([
      ...apis.map((p) => ({ role: options.split ? ('api' as const) : ('all' as const), pid: p.child.pid! })),
      ...workers.map((p) => ({ role: 'worker' as const, pid: p.child.pid! })),
    ]);
    // The server's commits, WAL and CPU over the run (BENCH_VERBOSE): other databases' work counts too, so read them
    // on a quiet server. Its CPU is read from /proc by its data directory's postmaster.pid: NaN (printed as such)
    // where that cannot be read (another user's server, another host).
    const dataDir = process.env.BENCH_VERBOSE
      ? ((await db.query('SHOW data_directory')).rows[0].data_directory as string)
      : '';
    const serverCpuSeconds = (): number => {
      try {
        return postgresCpuSeconds(dataDir);
      } catch {
        return Number.NaN;
      }
    };
    const serverWork = async (): Promise<{ commits: number; wal: string; cpu: number }> => ({
      ...(
        await db.query(
          `SELECT (SELECT sum(xact_commit)::float8 FROM pg_stat_database) AS commits,
             pg_current_wal_lsn()::text AS wal`,
        )
      ).rows[0],
      cpu: serverCpuSeconds(),
    });
    const workBefore = process.env.BENCH_VERBOSE ? await serverWork() : undefined;
    // BENCH_E2E_BREAKDOWN=1: where the run's WAL and the server's time went, by statement and relation, on a server
    // that preloads pg_stat_statements (bench/walBreakdown.ts; other databases' work counts too).
    const breakdown =
      process.env.BENCH_E2E_BREAKDOWN === '1'
        ? await startWalBreakdown(BENCH_DATABASE_URL, options.schema.name)
        : undefined;
    let start = performance.now();
    const postLatencies = await sendIn(batches, 0, false, () => {
      start = performance.now();
    });
    const acceptedAt = performance.now();
    if (process.env.BENCH_VERBOSE)
      process.stdout.write(
        `  all accepted after ${((acceptedAt - start) / 1000).toFixed(1)} s` +
          (receiver ? `, ${receiver.count() - callbacksBefore} callbacks so far\n` : '\n'),
      );
    const total = batches * 1000;
    await untilDelivered({
      db,
      total,
      callbacksReceived: receiver ? () => receiver.count() - callbacksBefore : undefined,
      receiptsAcknowledged: channel === 'SMS' ? () => simulators.smsc.receiptAckCount - receiptsBefore : undefined,
      startedAt: start,
    });
    if (process.env.BENCH_VERBOSE)
      process.stdout.write(
        `  all delivered after ${((performance.now() - start) / 1000).toFixed(1)} s, ` +
          `${(receiver?.count() ?? 0) - callbacksBefore} callbacks\n`,
      );
    const elapsed = (performance.now() - start) / 1000;
    const serverCpu = workBefore ? serverCpuSeconds() - workBefore.cpu : 0;
    const samples = rss?.stop() ?? [];
    const used = cpu.map((c) => c.stop());
    const observed = (await observer?.stop(total, elapsed)) ?? [];
    const heraldCpuSeconds = used.reduce((sum, u) => sum + u.processSeconds, 0);
    const heraldMainSeconds = used.reduce((sum, u) => sum + u.mainThreadSeconds, 0);
    const delivered = await db.query(
      `SELECT count(*)::int AS n FROM messages
       WHERE account_id = $1 AND status = 'delivered' AND ($2::timestamptz IS NULL OR created_at > $2)`,
      [account.id, timedAfter.messages],
    );
    if (delivered.rows[0].n !== total) throw new Error(`${delivered.rows[0].n} of ${total} delivered`);
    if (breakdown) process.stdout.write(`${await breakdown.stop(total)}\n`);
    if (process.env.BENCH_VERBOSE) {
      // Loaded here: an older tree's code, driven by this benchmark (bench/run.ts), may not have it.
      const { inPost } = await import('../src/callbacks/index.js');
      // How the events went out: POSTs to a receiver, or SMPP POSTs to the binds (one deliver_sm an event).
      const posts = await db.query(
        `SELECT via_smpp, count(*)::int AS n, avg(events)::float8 AS events FROM callback_deliveries
         WHERE $1::timestamptz IS NULL OR created_at > $1 GROUP BY via_smpp`,
        [timedAfter.posts],
      );
      for (const r of posts.rows)
        process.stdout.write(
          `  ${r.via_smpp ? 'SMPP POSTs' : 'POSTs'}: ${r.n}, ${Number(r.events).toFixed(1)} events each\n`,
        );
      // Where an event waited: from its status to the POST that carries it, and from there to the POST's end.
      const waits = await db.query(
        `SELECT d.via_smpp, ${['formed', 'ended']
          .flatMap((w) => [50, 99].map((p) => `percentile_cont(${p / 100}) WITHIN GROUP (ORDER BY ${w}) AS ${w}${p}`))
          .join(', ')}
         FROM callback_deliveries d
         JOIN callback_events e ON ${inPost('e', 'd')}
         CROSS JOIN LATERAL (SELECT extract(epoch FROM d.created_at - e.at) * 1000 AS formed,
           extract(epoch FROM d.finished_at - d.created_at) * 1000 AS ended) w
         WHERE $1::timestamptz IS NULL OR d.created_at > $1
         GROUP BY d.via_smpp`,
        [timedAfter.posts],
      );
      for (const r of waits.rows)
        process.stdout.write(
          `  ${r.via_smpp ? 'SMPP POSTs' : 'POSTs'}: an event's status -> its POST ` +
            `p50 ${Number(r.formed50).toFixed(0)} ms, p99 ${Number(r.formed99).toFixed(0)} ms; ` +
            `the POST -> its end p50 ${Number(r.ended50).toFixed(0)} ms, p99 ${Number(r.ended99).toFixed(0)} ms\n`,
        );
      // Stats are sent by backends as their transactions end: a moment's pause lets the last ones arrive.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const after = await serverWork();
      const wal = await db.query('SELECT pg_wal_lsn_diff($1, $2)::float8 AS bytes', [after.wal, workBefore!.wal]);
      process.stdout.write(
        `  server: ${(((after.commits - workBefore!.commits) * 1000) / total).toFixed(1)} commits per 1000 ` +
          `messages, ${(wal.rows[0].bytes / total).toFixed(0)} B of WAL and ` +
          `${((serverCpu * 1000) / total).toFixed(3)} CPU ms a message\n`,
      );
    }
    const latency = await db.query(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN
       GROUP (ORDER BY ms) AS p99
       FROM (SELECT extract(epoch FROM status_at - created_at) * 1000 AS ms FROM messages
         WHERE account_id = $1 AND ($2::timestamptz IS NULL OR created_at > $2)) t`,
      [account.id, timedAfter.messages],
    );
    for (const pool of pools) await pool.close();
    postLatencies.sort((a, b) => a - b);
    const label = receiver ? 'end to end with callbacks: accepted -> callback' : 'end to end: accepted -> delivered';
    if (options.soak) return soakFigures(samples, total, elapsed, options);
    const processes = options.split ? `${apis.length} api + ${workers.length} worker processes` : '1 process (all)';
    return [
      {
        name: label,
        value: total / elapsed,
        unit: 'msg/s',
        target: { op: '>=', value: 10_000 },
        note:
          (channel === 'SMS'
            ? `${total} SMS over SMPP, receipts after ${options.delayMs} ms, ${options.clients} clients, `
            : channel === 'VK'
              ? `${total} VK texts through the ${options.builtInVk ? 'built-in vk' : 'declarative herald-vk'} ` +
                `connector, delivered and read webhooks after ${options.delayMs} and ${2 * options.delayMs} ms, ` +
                `${options.clients} clients, `
              : `${total} TELEGRAM texts over the Bot API (sendMessage), ${options.clients} clients, `) +
          processes +
          `${receiver ? ', delivered callbacks to a local receiver' : ''}, ${elapsed.toFixed(1)} s` +
          (warmUp > 0 ? `, after a warm-up of ${warmUp * 1000} messages` : ''),
      },
      {
        name: 'end to end: Herald CPU per message',
        value: (heraldCpuSeconds * 1000) / total,
        unit: 'ms',
        note:
          `${heraldCpuSeconds.toFixed(1)} CPU s, ${heraldMainSeconds.toFixed(1)} of them its main thread's ` +
          `(the rest V8's compiler and collector, libuv's pool); the benchmark's own process ` +
          `${used[0]!.selfSeconds.toFixed(1)} CPU s; the machine ${used[0]!.machineBusyPercent.toFixed(0)} % busy, ` +
          `1-min load ${used[0]!.loadStart.toFixed(1)} at the start`,
      },
      ...(receiver
        ? []
        : [
            { name: 'end to end: accept -> delivered p50', value: Number(latency.rows[0].p50), unit: 'ms' },
            { name: 'end to end: accept -> delivered p99', value: Number(latency.rows[0].p99), unit: 'ms' },
            {
              name: 'end to end: POST latency p50',
              value: percentile(postLatencies, 50),
              unit: 'ms',
              note: 'while the pipeline runs',
            },
          ]),
      ...observed,
    ];
  } finally {
    await db.end();
    for (const p of [...apis, ...workers]) await p.stop();
    await simulators.stop();
    await receiver?.stop();
  }
}

/** The simulators' VK connector as the built-in `vk` type: the same id, address, secrets and flow. */
function builtInVk(declarative: HttpConnectorConfig): ConnectorConfig {
  const {
    type: _type,
    channel: _channel,
    profile: _profile,
    request: _request,
    response: _response,
    status: _status,
    secrets,
    ...flow
  } = declarative;
  return { ...flow, type: 'vk', apiKey: secrets!.API_KEY!, webhookSecret: secrets!.WEBHOOK! } as ConnectorConfig;
}

/**
 * Resolves when a run's (or a warm-up's) `total` messages are through. A run with a callback for each message waits
 * for them at the receiver first (`callbacksReceived`, counted in this process): every callback follows its
 * message's final status, so the database is then asked once. Its polls, run through the run, took some 5 % of the
 * server's CPU on the partitioned messages table (3.5 ms a poll, 50 a second), which the run was measuring. Without
 * callbacks, an SMS's receipt acknowledged by Herald (`receiptsAcknowledged`, the simulator's count) comes just before
 * its final status is written: it is waited for, and the database asked after it (its polls, 2.6 ms of the server's
 * CPU each on the partitioned table, were some 6 % of what a roles run measured without callbacks).
 */
async function untilDelivered(wait: {
  readonly db: pg.Pool;
  readonly total: number;
  readonly callbacksReceived: (() => number) | undefined;
  readonly receiptsAcknowledged: (() => number) | undefined;
  /** The run's start (performance.now()), for the progress lines of BENCH_VERBOSE. */
  readonly startedAt?: number;
}): Promise<void> {
  const since = performance.now();
  const late = (): boolean => performance.now() - since > 600_000;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  if (wait.callbacksReceived) {
    while (wait.callbacksReceived() < wait.total) {
      if (late()) throw new Error(`only ${wait.callbacksReceived()} of ${wait.total} callbacks after 10 minutes`);
      await pause(10);
    }
  } else if (wait.receiptsAcknowledged) {
    while (wait.receiptsAcknowledged() < wait.total) {
      if (late()) throw new Error('not all receipts acknowledged after 10 minutes');
      await pause(10);
    }
  }
  // Done when no message waits to be sent or for its receipt: both sets are small partial indexes.
  for (;;) {
    const waiting = await wait.db.query(
      `SELECT EXISTS (SELECT 1 FROM messages WHERE status = 'sending')
           OR EXISTS (SELECT 1 FROM messages WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL) AS busy`,
    );
    if (!waiting.rows[0].busy) return;
    if (process.env.BENCH_VERBOSE && wait.startedAt !== undefined && Math.random() < 0.05) {
      const c = await wait.db.query('SELECT status, count(*)::int AS n FROM messages GROUP BY status');
      process.stdout.write(
        `  ${((performance.now() - wait.startedAt) / 1000).toFixed(1)} s: ` +
          `${JSON.stringify(Object.fromEntries(c.rows.map((r) => [r.status, r.n])))}\n`,
      );
    }
    if (late()) throw new Error('not all delivered after 10 minutes');
    // Without callbacks or receipts to wait for first (VK, TELEGRAM), every poll runs through the run: 2 ms of the
    // server's CPU each on the partitioned table (8 us a message at 50 a second), so they come 10 a second (the
    // end of a run is seen up to 100 ms late).
    await pause(wait.callbacksReceived ? 20 : 100);
  }
}

/** A callback receiver that only counts the events it gets (answering 200 at once). */
export async function startCountingReceiver(): Promise<{
  url: string;
  count(): number;
  posts(): number;
  stop(): Promise<void>;
}> {
  let events = 0;
  let posts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts++;
      // Count events without parsing: every event has exactly one "callback_event" key.
      const body = Buffer.concat(chunks);
      for (let at = body.indexOf('"callback_event"'); at !== -1; at = body.indexOf('"callback_event"', at + 16))
        events++;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    count: () => events,
    posts: () => posts,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Samples a process's resident set size (Linux /proc) every `everyMs`, in MiB. */
function sampleRss(pid: number, everyMs: number): { stop(): number[] } {
  const samples: number[] = [];
  const read = (): void => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) samples.push(Number(match[1]) / 1024);
    } catch {
      // The process is gone; the run will say why.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return samples;
    },
  };
}

/**
 * The soak's figures: peak RSS, and its growth after warm-up: the peak of the last 40% of the run against the
 * peak of the 40% before it (the first 20% is warm-up: JIT, pools, buffers). A leak shows as steady growth.
 */
function soakFigures(
  samples: readonly number[],
  total: number,
  elapsed: number,
  _options: EndToEndOptions,
): BenchFigure[] {
  const at = (from: number, to: number): number =>
    Math.max(...samples.slice(Math.floor(samples.length * from), Math.ceil(samples.length * to)));
  const middle = at(0.2, 0.6);
  const last = at(0.6, 1);
  const what =
    `${total} SMS with delivered callbacks, 1 process (all), ${elapsed.toFixed(0)} s, ` + `${samples.length} samples`;
  return [
    {
      name: 'soak: accepted -> callback',
      value: total / elapsed,
      unit: 'msg/s',
      target: { op: '>=', value: 10_000 },
      note: what,
    },
    {
      name: 'soak: peak RSS',
      value: Math.max(...samples),
      unit: 'MiB',
      note: `warm-up (first 20%) peak ${at(0, 0.2).toFixed(0)} MiB`,
    },
    {
      name: 'soak: RSS growth after warm-up',
      value: ((last - middle) / middle) * 100,
      unit: '%',
      target: { op: '<=', value: 10 },
      note: `peak ${middle.toFixed(0)} MiB in 20-60% of the run, ${last.toFixed(0)} MiB in 60-100%`,
    },
  ];
}

/** What alternating end-to-end runs measured: each kind's rates and Herald CPU per message, and the load. */
/** Alternating end-to-end runs: their size, their clients, how many rounds, and a fresh schema for each run. */
export interface AlternatingOptions {
  readonly messages: number;
  readonly clients: number;
  readonly pairs: number;
  /** EndToEndOptions.warmUp of every run. */
  readonly warmUp?: number;
  readonly withSchema: (run: (schema: BenchSchema) => Promise<BenchFigure[]>) => Promise<BenchFigure[]>;
}

export interface AlternatingRuns<K extends string> {
  readonly rates: Record<K, number[]>;
  readonly cpu: Record<K, number[]>;
  /** The 1-min load at the start and at the end. */
  readonly load: string;
}

/**
 * Runs of the same size for each kind in turn, `pairs` times (each in a schema of its own): the machine's load moves
 * every kind alike, so that their ratios mean something on a shared machine. Prints each run as it ends.
 */
export async function alternatingEndToEnd<K extends string>(
  options: AlternatingOptions,
  kinds: Readonly<Record<K, { readonly label: string; readonly run: Partial<EndToEndOptions> }>>,
): Promise<AlternatingRuns<K>> {
  const keys = Object.keys(kinds) as K[];
  const rates = Object.fromEntries(keys.map((k) => [k, []])) as unknown as Record<K, number[]>;
  const cpu = Object.fromEntries(keys.map((k) => [k, []])) as unknown as Record<K, number[]>;
  const loadStart = os.loadavg()[0]!;
  for (let pair = 0; pair < options.pairs; pair++) {
    for (const kind of keys) {
      const measured = await options.withSchema((schema) =>
        benchEndToEnd({
          schema,
          messages: options.messages,
          clients: options.clients,
          delayMs: 20,
          split: false,
          callbacks: false,
          warmUp: options.warmUp,
          ...kinds[kind].run,
        }),
      );
      rates[kind].push(measured[0]!.value);
      const cpuMs = measured.find((f) => f.name === 'end to end: Herald CPU per message')?.value ?? NaN;
      cpu[kind].push(cpuMs);
      process.stdout.write(
        `  ${kinds[kind].label}: ${measured[0]!.value.toFixed(0)} msg/s, Herald ${cpuMs.toFixed(3)} CPU ms/msg\n`,
      );
    }
  }
  const load = `1-min load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  return { rates, cpu, load };
}

/** The mean of some runs' figures. */
export const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Runs' figures as `2522 / 2496 / 2889`. */
export const runsOf = (xs: readonly number[]): string => xs.map((x) => x.toFixed(0)).join(' / ');
