import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { DEFAULT_DB_IDLE_SECONDS } from '../src/config/config.js';
import { type AlternatingOptions, alternatingEndToEnd, type HeraldRole, meanOf } from './endToEnd.js';
import { adminQuery, type BenchFigure, postBatches, postgresCpuSeconds } from './lib.js';

/** pg's own idle timeout, which Herald's pools kept before HERALD_DB_IDLE_SECONDS. */
const DRIVER_IDLE_SECONDS = 10;

export interface BurstsBenchOptions extends AlternatingOptions {
  /** Bursts a run (BENCH_BURSTS), its messages spread evenly over them. */
  readonly bursts: number;
  /** The quiet between two bursts (BENCH_BURSTS_GAP_SECONDS): longer than the driver's idle timeout. */
  readonly gapSeconds: number;
}

/** What the server did over a run: its CPU (all of its processes) and the connections opened to it. */
interface ServerUse {
  cpuMs: number;
  sessions: number;
}

/**
 * The server's work over a run, read before the first burst and after the last message's delivery: its CPU from
 * /proc (the local server's data directory) and the sessions pg_stat_database counted (every database's: read on a
 * quiet server).
 */
function watchServer(into: ServerUse[]): (processes: readonly HeraldRole[]) => {
  stop(messages: number): Promise<BenchFigure[]>;
} {
  const read = async () => {
    const { rows } = await adminQuery(
      `SELECT current_setting('data_directory') AS dir,
         (SELECT sum(sessions)::float8 FROM pg_stat_database) AS sessions`,
    );
    return { cpu: postgresCpuSeconds(rows[0].dir as string), sessions: Number(rows[0].sessions) };
  };
  return () => {
    const before = read();
    return {
      async stop(messages) {
        const [start, end] = [await before, await read()];
        into.push({ cpuMs: ((end.cpu - start.cpu) * 1000) / messages, sessions: end.sessions - start.sessions });
        return [];
      },
    };
  };
}

/**
 * `BENCH_ONLY=bursts` (only when named: a run lasts its gaps): traffic in bursts a quarter of a minute apart, as an
 * installation with a steady trickle and peaks sees it, end to end (bench/endToEnd.ts: one Herald of role all,
 * 1000-message POSTs from `clients` clients, SMPP out to the simulator, each message delivered with a receipt), in
 * alternating runs of two pool settings: connections idle for 10 s closed (the driver's default, which Herald's
 * pools had) and Herald's default (HERALD_DB_IDLE_SECONDS). A connection opened again plans each statement from
 * cold caches. Prints PostgreSQL's CPU a message (every server process, from
 * /proc: a quiet server) and the connections opened a run. The target: the kept pool costs the server less than
 * the closing one, a message.
 */
export async function benchBursts(options: BurstsBenchOptions): Promise<BenchFigure[]> {
  const perBurst = Math.ceil(options.messages / options.bursts / 1000);
  const server: Record<'closing' | 'kept', ServerUse[]> = { closing: [], kept: [] };
  const intake = (idleSeconds: number) => ({
    env: { HERALD_DB_IDLE_SECONDS: String(idleSeconds) },
    async send(run: { heraldUrl: string; trafficToken: string; senderName: string; started: () => void }) {
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
            bodyOf: (b) =>
              JSON.stringify(
                Array.from({ length: 1000 }, (_, i) => ({
                  channelType: 'SMS',
                  senderName: run.senderName,
                  // Last digit 0: delivered.
                  destination: `7916${String((burst * perBurst + b) * 1000 + i).padStart(6, '0')}0`,
                  content: `Your code is ${String(i).padStart(4, '0')}`,
                })),
              ),
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
  const round = await alternatingEndToEnd({ ...options, messages: perBurst * options.bursts * 1000 }, kinds);
  const cpu = (kind: 'closing' | 'kept') => meanOf(server[kind].map((s) => s.cpuMs));
  const sessions = (kind: 'closing' | 'kept') => server[kind].map((s) => s.sessions).join(' / ');
  const runs = (kind: 'closing' | 'kept') => server[kind].map((s) => s.cpuMs.toFixed(3)).join(' / ');
  const shape = `${options.bursts} bursts of ${perBurst * 1000} SMS ${options.gapSeconds} s apart`;
  return [
    {
      name: `bursts: PostgreSQL CPU a message, idle connections closed after ${DRIVER_IDLE_SECONDS} s`,
      value: cpu('closing'),
      unit: 'ms',
      note: `${shape}; runs ${runs('closing')}; connections opened ${sessions('closing')}; ${round.load}`,
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
      note: `${options.pairs} alternating pairs`,
    },
  ];
}
