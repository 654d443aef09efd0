import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Pool } from 'undici';
import { type EmbeddedSimulators, startEmbeddedSimulators } from '../src/simulators/embeddedSimulators.js';

/** The PostgreSQL server benchmarks run on: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local one. */
export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchSchema {
  readonly name: string;
  /** DATABASE_URL whose connections see only this schema. */
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh schema for one benchmark run, so that figures never depend on rows left by tests or earlier runs. */
export async function createBenchSchema(): Promise<BenchSchema> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${name}`);
  const url = new URL(BENCH_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await adminQuery(`DROP SCHEMA ${name} CASCADE`);
    },
  };
}

export async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** bin/herald.js's shebang line: the environment it sets (`NAME=value` before `node`) and node's flags. */
function heraldLauncher(): { env: string; flags: string } {
  const first = readFileSync('bin/herald.js', 'utf8').split('\n')[0] ?? '';
  const [, env = '', flags = ''] = /^#!\S*env -S\s+(.*?)\bnode\b(.*)$/.exec(first) ?? [];
  return { env: env.trim(), flags: flags.trim() };
}

export interface HeraldProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built Herald (dist/) as a separate process and waits until it listens. */
export async function startHeraldProcess(
  role: string,
  env: Record<string, string>,
  ready = /listening at (http:\/\/[^"\s]+)/,
): Promise<HeraldProcess> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('HERALD_') && k !== 'DATABASE_URL'),
  );
  // BENCH_PROFILE=<dir>: Herald writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  // The same environment and V8 flags as bin/herald.js's first line, unless BENCH_NODE_ENV (`NAME=value ...`, or
  // empty for none) and BENCH_NODE_FLAGS say otherwise.
  const launcher = heraldLauncher();
  const v8 = (process.env.BENCH_NODE_FLAGS ?? launcher.flags).split(' ').filter(Boolean);
  const launcherEnv = Object.fromEntries(
    (process.env.BENCH_NODE_ENV ?? launcher.env)
      .split(' ')
      .filter(Boolean)
      .map((pair) => {
        const [name = '', ...value] = pair.split('=');
        return [name, value.join('=')];
      }),
  );
  // Benchmarks send thousands to consecutive numbers, which the pumping detection holds as a burst: off unless a
  // benchmark of the guard's cost switches it on (HERALD_PUMPING_MODE=hold in its env).
  const child = spawn(process.execPath, [...v8, ...profile, 'bin/herald.js', 'serve', '--role', role], {
    env: { ...clean, ...launcherEnv, HERALD_LOG_LEVEL: 'info', HERALD_PUMPING_MODE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = ready.exec(output);
      if (match) resolve(match[1] ?? '');
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`herald exited with ${code}:\n${output}`)));
  });
  // Once it listens, its log is no longer kept here (the streams keep flowing, so Herald never blocks on a full
  // pipe): at info, Fastify logs every request twice, and a run of webhooks made hundreds of MB of it, searched
  // again on every chunk. A benchmark that wants the log listens to child.stdout itself.
  for (const stream of [child.stdout!, child.stderr!]) stream.removeAllListeners('data').resume();
  output = '';
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** The median of some figures (sorts them in place). */
export const median = (xs: number[]): number =>
  percentile(
    xs.sort((a, b) => a - b),
    50,
  );

export function machineDescription(): string {
  const cpus = os.cpus();
  return (
    `${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}`
  );
}

export async function postgresVersion(): Promise<string> {
  const result = await adminQuery('SHOW server_version');
  return `PostgreSQL ${result.rows[0].server_version}`;
}

/**
 * Sends `batches` request bodies (`bodyOf(n)`, built as sent: a million messages' bodies held at once would weigh on
 * the machine under test) to `path` with the traffic token, from `clients` clients taking turns over `pools`; every
 * answer must be 200 with `{"errors":false`. Resolves with each request's latency in ms.
 */
export async function postBatches(options: {
  readonly pools: readonly Pool[];
  readonly path: string;
  readonly token: string;
  readonly clients: number;
  readonly batches: number;
  readonly bodyOf: (batch: number) => string;
}): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      while (next < options.batches) {
        const body = options.bodyOf(next++);
        const t0 = performance.now();
        const response = await options.pools[client % options.pools.length]!.request({
          method: 'POST',
          path: options.path,
          headers: { authorization: `Basic ${options.token}`, 'content-type': 'application/json' },
          body,
        });
        const text = await response.body.text();
        if (response.statusCode !== 200 || !text.startsWith('{"errors":false'))
          throw new Error(`${options.path} failed: ${response.statusCode} ${text.slice(0, 300)}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

/**
 * The body of the `b`-th POST of a run (1000 messages, or `size`): SMS (or another channel's texts) to distinct
 * numbers, each delivered (last digit 0), each asking for its callback at `callbackUrl` when given.
 */
export const batchBody = (b: number, channel: string, senderName: string, callbackUrl?: string, size = 1000): string =>
  JSON.stringify(
    Array.from({ length: size }, (_, i) => ({
      channelType: channel,
      senderName,
      destination: `7916${String((b * 1000 + i) % 1_000_000).padStart(6, '0')}0`,
      content: `Your code is ${String(i).padStart(4, '0')}`,
      ...(callbackUrl ? { callbackUrl } : {}),
    })),
  );

/** Where `npm run bench` writes its figures, relative to the tree it runs in. */
export const RESULTS_FILE = 'bench/results/latest.json';

/** One line of the final table. */
export interface BenchFigure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: { readonly op: '>=' | '<='; readonly value: number };
  readonly note?: string;
}

export function meetsTarget(figure: BenchFigure): boolean | undefined {
  if (!figure.target) return undefined;
  return figure.target.op === '>=' ? figure.value >= figure.target.value : figure.value <= figure.target.value;
}

export function renderTable(figures: readonly BenchFigure[]): string {
  const rows = figures.map((f) => {
    const met = meetsTarget(f);
    return [
      f.name,
      `${formatNumber(f.value)} ${f.unit}`,
      f.target ? `${f.target.op} ${formatNumber(f.target.value)} ${f.unit}` : '',
      met === undefined ? '' : met ? 'met' : 'MISSED',
      f.note ?? '',
    ];
  });
  const header = ['figure', 'measured', 'target', '', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(n >= 10 ? 1 : 2);
}

/** CPU used over an interval: by a process (Linux /proc), by this one, and by the whole machine. */
export interface CpuUse {
  readonly seconds: number;
  /** CPU seconds of the watched process (all its threads). */
  readonly processSeconds: number;
  /**
   * CPU seconds of its main thread, the event loop's: the rest of processSeconds is its other threads' (V8's
   * optimising compiler and collector, libuv's pool), which a fresh process spends most on.
   */
  readonly mainThreadSeconds: number;
  /** CPU seconds of this (the benchmark's) process: clients, simulators, polling. */
  readonly selfSeconds: number;
  /** Share of the machine's CPU time that was not idle, in percent. */
  readonly machineBusyPercent: number;
  /** The 1-minute load average at the start and at the end. */
  readonly loadStart: number;
  readonly loadEnd: number;
}

/**
 * CPU seconds (user and system) a running process has used so far, all its threads or only `thread`'s (its main
 * thread's id is its pid), from /proc.
 */
export function processCpuSeconds(pid: number, thread?: number): number {
  // Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th, in USER_HZ, which is
  // 100 on every Linux Node runs on.
  const stat = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts measuring CPU use; `stop` (while the process still runs) gives the use since. */
export function watchCpu(pid: number): { stop(): CpuUse } {
  const processSeconds = (): number => processCpuSeconds(pid);
  const mainThreadSeconds = (): number => processCpuSeconds(pid, pid);
  const machine = (): { idle: number; total: number } => {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // idle and iowait
    return { idle: cpu[3]! + cpu[4]!, total: cpu.reduce((a, b) => a + b, 0) };
  };
  const t0 = performance.now();
  const process0 = processSeconds();
  const main0 = mainThreadSeconds();
  const self0 = process.cpuUsage();
  const machine0 = machine();
  const loadStart = os.loadavg()[0]!;
  return {
    stop() {
      const self = process.cpuUsage(self0);
      const m = machine();
      return {
        seconds: (performance.now() - t0) / 1000,
        processSeconds: processSeconds() - process0,
        mainThreadSeconds: mainThreadSeconds() - main0,
        selfSeconds: (self.user + self.system) / 1e6,
        machineBusyPercent: (1 - (m.idle - machine0.idle) / (m.total - machine0.total)) * 100,
        loadStart,
        loadEnd: os.loadavg()[0]!,
      };
    },
  };
}

/**
 * A JSON caller over an undici pool: sends `body` as JSON with the given Authorization, returns the parsed answer,
 * and throws on a status of 300 or more.
 */
export function jsonCaller(http: {
  request: Pool['request'];
}): (auth: string, method: string, p: string, body?: unknown) => Promise<any> {
  return async (auth, method, p, body) => {
    const response = await http.request({
      method: method as 'POST',
      path: p,
      headers: { authorization: auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = await response.body.json();
    if (response.statusCode >= 300) throw new Error(`${method} ${p}: ${response.statusCode} ${JSON.stringify(answer)}`);
    return answer;
  };
}

/** The output of `uptime` (load averages), as the benchmarks print it. */
export function uptime(): string {
  return execFileSync('uptime', { encoding: 'utf8' }).trim();
}

/**
 * The carrier simulators in this process (receipts after 20 ms, window 1000, no rate limit; the providers' requests
 * not kept), and a Herald config file that sends SMS only, to the SMSC simulator over SMPP.
 */
export async function startSmsSimulators(): Promise<{ simulators: EmbeddedSimulators; configPath: string }> {
  const simulators = await startEmbeddedSimulators({ delayMs: 20, window: 1000, mps: 100_000 });
  simulators.providers.recordRequests(false);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const configPath = path.join(dir, 'herald.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      connectors: simulators.configFile.connectors.filter((c) => c.type === 'smpp'),
      routes: simulators.configFile.routes.filter((r) => r.channel === 'SMS'),
    }),
  );
  return { simulators, configPath };
}

/** The operator token of every benchmark's Herald. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/**
 * The environment of a benchmark's Herald process: its database (`databaseUrl`: a schema of the bench database), the
 * simulators' configuration file, the operator token, a free port, and a pool of 12 connections.
 */
export function benchHeraldEnv(databaseUrl: string, configPath: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    HERALD_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    HERALD_PORT: '0',
    HERALD_CONFIG: configPath,
    HERALD_DB_POOL_SIZE: '12',
  };
}

/**
 * CPU seconds of the whole PostgreSQL server: the postmaster, its live children (backends, WAL writer,
 * checkpointer, autovacuum) and, through the postmaster's cutime/cstime, every child it has reaped.
 */
export const postgresCpuSeconds = (dataDir: string): number => cpuTotal(postgresCpuByKind(dataDir));

/** The CPU seconds of {@link postgresCpuByKind}'s kinds together. */
export function cpuTotal(kinds: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const seconds of kinds.values()) total += seconds;
  return total;
}

/**
 * {@link postgresCpuSeconds} by kind of process: `backends` (every client connection), each auxiliary process by its
 * title (`walwriter`, `checkpointer`, `autovacuum worker`, ...), the `postmaster`, and `reaped children` (the CPU of
 * children that have exited, autovacuum's workers mostly).
 */
export function postgresCpuByKind(dataDir: string): Map<string, number> {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  // USER_HZ is 100 on every Linux Node runs on; after the command's ')': ppid is the 2nd field, utime to cstime
  // the 12th to 15th (cutime and cstime the 14th and 15th).
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined; // gone meanwhile
    }
  };
  const stat = (pid: number): string[] | undefined => read(`/proc/${pid}/stat`)?.split(') ')[1]!.split(' ');
  const seconds = (fields: readonly string[], from: number, to: number): number =>
    fields.slice(from, to).reduce((sum, field) => sum + Number(field), 0) / 100;
  const kinds = new Map<string, number>();
  const add = (kind: string, cpu: number): void => void kinds.set(kind, (kinds.get(kind) ?? 0) + cpu);
  const own = stat(postmaster)!;
  add('postmaster', seconds(own, 11, 13));
  add('reaped children', seconds(own, 13, 15));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = stat(Number(entry));
    if (!fields || Number(fields[1]) !== postmaster) continue;
    // A backend's title is "postgres: user database host state"; an auxiliary process's, "postgres: its name" (an
    // autovacuum worker's followed by its database).
    const title = read(`/proc/${entry}/cmdline`)?.replaceAll('\0', ' ').trim() ?? '';
    add(/^postgres: (autovacuum worker|[a-z ]+$)/.exec(title)?.[1] ?? 'backends', seconds(fields, 11, 15));
  }
  return kinds;
}
