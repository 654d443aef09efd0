import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Pool } from 'undici';
import { DEFAULT_DB_IDLE_SECONDS } from '../src/config/config.js';
import { type AlternatingOptions, alternatingEndToEnd, type EndToEndOptions, type Intake, meanOf } from './endToEnd.js';
import { BENCH_DATABASE_URL, batchBody, type BenchFigure, postBatches, postgresCpuSeconds } from './lib.js';

type Kind = 'closing' | 'kept';

/** pg's own idle timeout, which Herald's pools kept before HERALD_DB_IDLE_SECONDS. */
export const DRIVER_IDLE_SECONDS = 10;

export interface BurstsBenchOptions extends AlternatingOptions {
  /** Bursts a run (BENCH_BURSTS), its messages spread evenly over them. */
  readonly bursts: number;
  /**
   * The quiet after each burst's last POST is answered (BENCH_BURSTS_GAP_SECONDS): its delivery, then long enough
   * past the driver's idle timeout for the closing pool to close what the burst opened.
   */
  readonly gapSeconds: number;
}

/** What the server did over a run: its CPU (all of its processes) and the connections opened to it. */
interface ServerUse {
  cpuMs: number;
  sessions: number;
}

/**
 * The server's work over a run, read before the first burst and after the last message's delivery on a connection
 * of its own opened before (so that it is not counted): its CPU from /proc (the local server's data directory) and
 * the sessions pg_stat_database counted (every database's: read on a quiet server; the run's own poll connects
 * before the first burst, bench/endToEnd.ts).
 */
function watchServer(into: ServerUse[]): EndToEndOptions['observe'] {
  return async () => {
    const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
    await client.connect();
    const read = async () => {
      const { rows } = await client.query(
        `SELECT current_setting('data_directory') AS dir,
           (SELECT sum(sessions)::float8 FROM pg_stat_database) AS sessions`,
      );
      return { cpu: postgresCpuSeconds(rows[0].dir as string), sessions: Number(rows[0].sessions) };
    };
    const start = await read();
    return {
      async stop(messages) {
        try {
          const end = await read();
          into.push({ cpuMs: ((end.cpu - start.cpu) * 1000) / messages, sessions: end.sessions - start.sessions });
          return [];
        } finally {
          await client.end();
        }
      },
    };
  };
}

/**
 * `BENCH_ONLY=bursts` (only when named: a run lasts its gaps): traffic in bursts 20 s apart (by default), as an
 * installation with a steady trickle and peaks sees it, end to end (bench/endToEnd.ts: one Herald of role all,
 * 1000-message POSTs from `clients` clients, SMPP out to the simulator, each message delivered with a receipt), in
 * alternating runs of two pool settings: connections idle for 10 s closed (the driver's default, which Herald's
 * pools had) and Herald's default (HERALD_DB_IDLE_SECONDS). A connection opened again plans each statement from
 * cold caches. Prints PostgreSQL's CPU a message (every server process, from
 * /proc: a quiet server) and the connections opened a run. The target: the kept pool costs the server less than
 * the closing one, a message.
 */
export async function benchBursts(options: BurstsBenchOptions): Promise<BenchFigure[]> {
  if (options.gapSeconds <= DRIVER_IDLE_SECONDS + 5)
    throw new Error(`BENCH_BURSTS_GAP_SECONDS: more than ${DRIVER_IDLE_SECONDS + 5} s, else no connection closes`);
  const perBurst = Math.ceil(options.messages / options.bursts / 1000);
  const server: Record<Kind, ServerUse[]> = { closing: [], kept: [] };
  const intake = (idleSeconds: number): Intake => ({
    env: { HERALD_DB_IDLE_SECONDS: String(idleSeconds) },
    async send(run) {
      const pool = new Pool(run.heraldUrl, { connections: options.clients });
      try {
        run.started();
        for (let burst = 0; burst < options.bursts; burst++) {
          if (burst > 0) await sleep(options.gapSeconds * 1000);
          await postBatches({
            pools: [pool],
            path: '/api/v1/message',
            token: run.trafficToken,
            clients: options.clients,
            batches: perBurst,
            bodyOf: (b) => batchBody(burst * perBurst + b, 'SMS', run.senderName),
          });
        }
      } finally {
        await pool.close();
      }
    },
  });
  const kinds = {
    closing: {
      label: `bursts, idle connections closed after ${DRIVER_IDLE_SECONDS} s`,
      run: { intake: intake(DRIVER_IDLE_SECONDS), observe: watchServer(server.closing) },
    },
    kept: {
      label: `bursts, idle connections closed after ${DEFAULT_DB_IDLE_SECONDS} s`,
      run: { intake: intake(DEFAULT_DB_IDLE_SECONDS), observe: watchServer(server.kept) },
    },
  };
  const loadStart = os.loadavg()[0]!;
  // Each kind first in every other pair: a load that falls or rises through the run weighs on both alike.
  for (let pair = 0; pair < options.pairs; pair++) {
    const order: Kind[] = pair % 2 === 0 ? ['closing', 'kept'] : ['kept', 'closing'];
    await alternatingEndToEnd(
      { ...options, pairs: 1, messages: perBurst * options.bursts * 1000 },
      Object.fromEntries(order.map((kind) => [kind, kinds[kind]])) as typeof kinds,
    );
  }
  const load = `1-min load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  const cpu = (kind: Kind) => meanOf(server[kind].map((s) => s.cpuMs));
  const sessions = (kind: Kind) => server[kind].map((s) => s.sessions).join(' / ');
  const runs = (kind: Kind) => server[kind].map((s) => s.cpuMs.toFixed(3)).join(' / ');
  const shape = `${options.bursts} bursts of ${perBurst * 1000} SMS ${options.gapSeconds} s apart`;
  return [
    {
      name: `bursts: PostgreSQL CPU a message, idle connections closed after ${DRIVER_IDLE_SECONDS} s`,
      value: cpu('closing'),
      unit: 'ms',
      note: `${shape}; runs ${runs('closing')}; connections opened ${sessions('closing')}; ${load}`,
    },
    {
      name: `bursts: PostgreSQL CPU a message, idle connections closed after ${DEFAULT_DB_IDLE_SECONDS} s`,
      value: cpu('kept'),
      unit: 'ms',
      note: `runs ${runs('kept')}; connections opened ${sessions('kept')}`,
    },
    {
      name: 'bursts: kept / closing, PostgreSQL CPU a message',
      value: cpu('kept') / cpu('closing'),
      unit: 'ratio',
      target: { op: '<=', value: 0.99 },
      note: `${options.pairs} pairs, each kind first in every other`,
    },
  ];
}
