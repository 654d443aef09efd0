import os from 'node:os';
import pg from 'pg';
import { type PostgresServer, startPostgres } from '../test/ha/servers.js';
import { benchEndToEnd, type HeraldRole } from './endToEnd.js';
import { type BenchFigure, cpuTotal, postgresCpuByKind, watchCpu } from './lib.js';
import { BREAKDOWN_SETTINGS, startWalBreakdown } from './walBreakdown.js';

export interface RolesOptions {
  readonly messages: number;
  readonly clients: number;
  readonly apiProcesses: number;
  readonly workerProcesses: number;
  /** Print where the WAL and the write transactions went (bench/walBreakdown.ts) after each phase. */
  readonly breakdown?: boolean;
  /**
   * 1000-message batches through each phase's Herald before it is watched (BENCH_E2E_WARMUP): the figures are then a
   * running process's, without what a fresh one pays once (its connections' first plans, V8's first compiles).
   */
  readonly warmUp?: number;
  /**
   * How long after its submission the SMSC sends an SMS's receipt (BENCH_ROLES_RECEIPT_MS, default 20). At 20 ms most
   * receipts reach the writer with their `sent` and the two make one update of the message; receipts that come later,
   * as a carrier's do, make each its own.
   */
  readonly receiptDelayMs?: number;
}

/**
 * What each role costs: Herald split into api and worker processes, end to end over SMPP (as `e2e`), without and
 * then with a delivered callback per message, on a PostgreSQL server of the benchmark's own (a throwaway cluster,
 * fsync on): its every process is Herald's, so its CPU, WAL and commits are the run's alone, whatever else the shared
 * machine runs. The figures are CPU time per message (what survives a loaded machine, unlike a rate) for each role,
 * PostgreSQL and the benchmark's own process, messages per second per core (1000 / ms), and WAL bytes, commits and
 * WAL flushes per message: what bounds one primary.
 */
export async function benchRoles(options: RolesOptions): Promise<BenchFigure[]> {
  const server = await startPostgres({ durable: true, ...(options.breakdown ? { settings: BREAKDOWN_SETTINGS } : {}) });
  try {
    const figures: BenchFigure[] = [];
    for (const callbacks of [false, true]) {
      const database = callbacks ? 'roles_callbacks' : 'roles_plain';
      await serverQuery(server.url, `CREATE DATABASE ${database}`);
      const url = new URL(server.url);
      url.pathname = `/${database}`;
      const phase = callbacks ? 'roles, with callbacks' : 'roles';
      const measured = await benchEndToEnd({
        schema: { name: 'public', url: url.toString(), drop: async () => {} },
        messages: options.messages,
        clients: options.clients,
        delayMs: options.receiptDelayMs ?? 20,
        split: true,
        apiProcesses: options.apiProcesses,
        workerProcesses: options.workerProcesses,
        callbacks,
        warmUp: options.warmUp,
        observe: (processes) =>
          observeRoles(
            server,
            url.toString(),
            processes,
            { phase, callbacks, warmUp: options.warmUp ?? 0 },
            options.breakdown === true,
          ),
      });
      // The run's rate, then the per-role figures; the single-process figures of `e2e` (latency, CPU) are left out.
      figures.push({ ...measured[0]!, name: `${phase}: accepted -> ${callbacks ? 'callback' : 'delivered'}` });
      figures.push(...measured.filter((f) => f.name.startsWith(`${phase}:`)));
    }
    return figures;
  } finally {
    server.destroy();
  }
}

async function serverQuery(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Counters of the server that bound a primary: WAL written and flushed, transactions. */
interface ServerCounters {
  readonly walBytes: number;
  readonly walFlushes: number;
  /** Full-page images written to the WAL (the first change of a page after a checkpoint). */
  readonly walPageImages: number;
  /** Transactions committed, read-only ones included (the benchmark's polling among them). */
  readonly commits: number;
  /** Transaction ids assigned: the transactions that wrote, each a commit record to flush. */
  readonly writes: number;
}

async function serverCounters(url: string): Promise<ServerCounters> {
  const result = await serverQuery(
    url,
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal_bytes,
            (SELECT wal_sync FROM pg_stat_wal)::float8 AS wal_flushes,
            (SELECT wal_fpi FROM pg_stat_wal)::float8 AS wal_fpi,
            (SELECT sum(xact_commit) FROM pg_stat_database)::float8 AS commits,
            pg_snapshot_xmax(pg_current_snapshot())::text::float8 AS next_xid`,
  );
  const row = result.rows[0];
  return {
    walBytes: row.wal_bytes,
    walFlushes: row.wal_flushes,
    walPageImages: row.wal_fpi,
    commits: row.commits,
    writes: row.next_xid,
  };
}

/**
 * Measures one run: each Herald process's CPU (by role), PostgreSQL's, this process's (clients, simulators, the
 * callback receiver), the server's counters, and the load. Figures are per message.
 */
async function observeRoles(
  server: PostgresServer,
  url: string,
  processes: readonly HeraldRole[],
  { phase, callbacks, warmUp }: { phase: string; callbacks: boolean; warmUp: number },
  breakdown: boolean,
): Promise<{ stop(messages: number, seconds: number): Promise<BenchFigure[]> }> {
  const watched = processes.map((p) => ({ role: p.role, cpu: watchCpu(p.pid) }));
  // Awaited here, before the run: a breakdown that cannot start (a server without pg_stat_statements) fails the run,
  // whose processes are then stopped, where a promise awaited only at its end was an unhandled rejection that ended
  // the benchmark and left them running.
  const walBreakdown = breakdown ? await startWalBreakdown(url) : undefined;
  const kinds0 = postgresCpuByKind(server.dataDir);
  const before = await serverCounters(url);
  return {
    async stop(messages, seconds) {
      const used = watched.map((w) => ({ role: w.role, use: w.cpu.stop() }));
      const kinds = postgresCpuByKind(server.dataDir);
      const pgSeconds = cpuTotal(kinds) - cpuTotal(kinds0);
      // PostgreSQL publishes a backend's statistics within a second of its going idle (PGSTAT_MIN_INTERVAL): the
      // WAL position is exact at once, the commit and flush counts after that second.
      const atEnd = await serverCounters(url);
      const walBytes = atEnd.walBytes - before.walBytes;
      const writes = atEnd.writes - before.writes;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = await serverCounters(url);
      const machine = used[0]!.use;
      const load = `1-min load ${machine.loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
      const perMessage = (cpuSeconds: number): number => (cpuSeconds * 1000) / messages;
      const rate = messages / seconds;
      const cpuFigure = (who: string, cpuSeconds: number, what: string): BenchFigure => {
        const ms = perMessage(cpuSeconds);
        return {
          name: `${phase}: ${who} CPU per message`,
          value: ms,
          unit: 'ms',
          note:
            `${Math.round(1000 / ms).toLocaleString('en-US')} msg/s per core; ${what}; ` +
            `${cpuSeconds.toFixed(1)} CPU s, ${((cpuSeconds / seconds) * 100).toFixed(0)} % of a core at ` +
            `${Math.round(rate).toLocaleString('en-US')} msg/s` +
            (warmUp > 0 ? `, after a warm-up of ${warmUp * 1000} messages` : ''),
        };
      };
      const roles = (['api', 'worker', 'all'] as const).flatMap((role) => {
        const mine = used.filter((u) => u.role === role);
        if (mine.length === 0) return [];
        const cpuSeconds = mine.reduce((sum, u) => sum + u.use.processSeconds, 0);
        return [cpuFigure(role, cpuSeconds, `${mine.length} process${mine.length > 1 ? 'es' : ''}`)];
      });
      const ours = used.reduce((sum, u) => sum + u.use.processSeconds, pgSeconds + machine.selfSeconds);
      const figures: BenchFigure[] = [
        ...roles,
        cpuFigure('PostgreSQL', pgSeconds, 'every process of the server (backends, WAL writer, checkpointer, ...)'),
        cpuFigure('benchmark process', machine.selfSeconds, 'the clients, the SMSC simulator, the callback receiver'),
        {
          name: `${phase}: WAL per message`,
          value: walBytes / messages,
          unit: 'bytes',
          // Issue 35's targets: 2,500 bytes with callbacks, 1,800 without.
          target: { op: '<=', value: callbacks ? 2500 : 1800 },
          note:
            `${(walBytes / 2 ** 20).toFixed(0)} MiB for ${messages} messages (pg_current_wal_lsn before and after), ` +
            `${after.walPageImages - before.walPageImages} full-page images in it (pg_stat_wal wal_fpi)`,
        },
        {
          name: `${phase}: write transactions per 1000 messages`,
          value: (writes * 1000) / messages,
          unit: '',
          // Issue 35's target with callbacks (a commit each: what one primary flushes per message).
          ...(callbacks ? { target: { op: '<=' as const, value: 25 } } : {}),
          note: `${writes} transaction ids assigned (pg_snapshot_xmax before and after): each a commit to flush`,
        },
        {
          name: `${phase}: commits per 1000 messages`,
          value: ((after.commits - before.commits) * 1000) / messages,
          unit: '',
          note:
            `${after.commits - before.commits} (pg_stat_database xact_commit), read-only ones included: Herald's ` +
            "and the benchmark's polling",
        },
        {
          name: `${phase}: WAL flushes per 1000 messages`,
          value: ((after.walFlushes - before.walFlushes) * 1000) / messages,
          unit: '',
          note: `${after.walFlushes - before.walFlushes} fsyncs of WAL (pg_stat_wal wal_sync), fsync on`,
        },
        {
          name: `${phase}: machine busy`,
          value: machine.machineBusyPercent,
          unit: '%',
          note:
            `${os.cpus().length} cores, ${((ours / (os.cpus().length * seconds)) * 100).toFixed(0)} % of them this ` +
            `run's (Herald, PostgreSQL, the benchmark), the rest other work; ${load}; ${seconds.toFixed(1)} s`,
        },
      ];
      process.stdout.write(
        figures.map((f) => `  ${f.name}: ${f.value.toFixed(3)} ${f.unit} (${f.note ?? ''})`).join('\n') + '\n',
      );
      if (walBreakdown) {
        const byKind = [...kinds]
          .map(([kind, cpu]) => `  ${kind}: ${(cpu - (kinds0.get(kind) ?? 0)).toFixed(2)} CPU s`)
          .join('\n');
        process.stdout.write(`\n${phase}: PostgreSQL's CPU by process\n${byKind}\n`);
        process.stdout.write(`\n${phase}: where the WAL went\n${await walBreakdown.stop(messages)}\n\n`);
      }
      return figures;
    },
  };
}
