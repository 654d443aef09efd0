import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  adminQuery,
  BENCH_DATABASE_URL,
  type BenchFigure,
  processCpuSeconds,
  startHeraldProcess,
  watchCpu,
} from './lib.js';

const ADMIN_TOKEN = 'bench-idle-admin-token-0123456789abcdef';

/** CPU seconds (user and system) a process has used so far; undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    return processCpuSeconds(pid);
  } catch {
    return undefined;
  }
}

/** A field of /proc/<pid>/status in MB (VmRSS: resident now, VmHWM: the peak resident). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN) / 1024;
}

/** The server processes serving a database's connections, from pg_stat_activity, and the CPU each has used. */
async function backendCpu(database: string): Promise<Map<number, number>> {
  const { rows } = await adminQuery('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows as { pid: number }[]) {
    const used = cpuSeconds(pid);
    if (used !== undefined) cpu.set(pid, used);
  }
  return cpu;
}

const loadNote = (use: { machineBusyPercent: number; loadStart: number; loadEnd: number }): string =>
  `the machine ${Math.round(use.machineBusyPercent)} % busy, 1-min load ${use.loadStart.toFixed(1)} -> ` +
  `${use.loadEnd.toFixed(1)} (${os.cpus().length} cores)`;

/**
 * Idle cost: Herald with no traffic, in each mode, over `seconds` after `settleSeconds` of start-up.
 * PostgreSQL: one Herald process (role all, no connectors) on a fresh database of the local server; its own CPU
 * from /proc/<pid>/stat and that of the server processes serving it (pg_stat_activity's pids). Embedded: what
 * `npm start` runs (PGlite in a fresh data folder, demo account, simulators); its CPU and resident memory now and
 * at its peak. Targets (issue 18): under 1 % of a core for Herald and PostgreSQL together, and for the embedded
 * mode, which should also stay under 250 MB resident.
 */
export async function benchIdle(options: { seconds: number; settleSeconds: number }): Promise<BenchFigure[]> {
  const { seconds, settleSeconds } = options;
  const figures: BenchFigure[] = [];

  // PostgreSQL: a database of its own, so that its backends are easy to find and nothing else's are counted.
  const database = `herald_idle_${process.pid}`;
  await adminQuery(`DROP DATABASE IF EXISTS ${database}`);
  await adminQuery(`CREATE DATABASE ${database}`);
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `/${database}`;
  url.search = '';
  const herald = await startHeraldProcess('all', {
    DATABASE_URL: url.toString(),
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
    HERALD_PORT: '0',
  });
  try {
    await sleep(settleSeconds * 1000);
    const watch = watchCpu(herald.child.pid!);
    const backends0 = await backendCpu(database);
    await sleep(seconds * 1000);
    const backends1 = await backendCpu(database);
    const use = watch.stop();
    let postgresSeconds = 0;
    for (const [pid, used] of backends1) postgresSeconds += used - (backends0.get(pid) ?? 0);
    const heraldPercent = (use.processSeconds / use.seconds) * 100;
    const postgresPercent = (postgresSeconds / use.seconds) * 100;
    const note = `${Math.round(use.seconds)} s idle, ${backends1.size} backends; ${loadNote(use)}`;
    figures.push(
      { name: 'idle, PostgreSQL: Herald CPU', value: heraldPercent, unit: '% of a core', note },
      { name: 'idle, PostgreSQL: its backends CPU', value: postgresPercent, unit: '% of a core' },
      {
        name: 'idle, PostgreSQL: Herald + backends',
        value: heraldPercent + postgresPercent,
        unit: '% of a core',
        target: { op: '<=', value: 1 },
      },
    );
  } finally {
    await herald.stop();
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }

  // Embedded: PGlite in a fresh folder, with the demo account and the simulators, as `npm start` runs it.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'herald-idle-'));
  const embedded = await startHeraldProcess('all', { HERALD_DATA_DIR: dataDir, HERALD_PORT: '0' });
  try {
    await sleep(settleSeconds * 1000);
    const pid = embedded.child.pid!;
    const watch = watchCpu(pid);
    await sleep(seconds * 1000);
    const use = watch.stop();
    const note = `${Math.round(use.seconds)} s idle; ${loadNote(use)}`;
    figures.push(
      {
        name: 'idle, embedded: CPU',
        value: (use.processSeconds / use.seconds) * 100,
        unit: '% of a core',
        target: { op: '<=', value: 1 },
        note,
      },
      {
        name: 'idle, embedded: resident memory',
        value: memoryMb(pid, 'VmRSS'),
        unit: 'MB',
        target: { op: '<=', value: 250 },
      },
      {
        name: 'idle, embedded: peak resident memory',
        value: memoryMb(pid, 'VmHWM'),
        unit: 'MB',
        note: 'VmHWM: start-up included',
      },
    );
  } finally {
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
}
