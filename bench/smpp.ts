import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import type { SmppConnectorConfig } from '../src/connectors/connectorConfig.js';
import { SMPP_STATUS } from '../src/connectors/smpp/smppErrors.js';
import { type EmbeddedSimulators, startEmbeddedSimulators } from '../src/simulators/embeddedSimulators.js';
import {
  type BenchFigure,
  createBenchSchema,
  batchBody,
  postBatches,
  startHeraldProcess,
  BENCH_ADMIN_TOKEN,
  benchHeraldEnv,
} from './lib.js';

export interface SmppBenchOptions {
  /** SMS per Herald run (BENCH_SMPP_MESSAGES). */
  readonly messages: number;
  /** SMS per bare client run, several times as fast: enough for a few seconds (BENCH_SMPP_BARE_MESSAGES). */
  readonly bareMessages: number;
  readonly clients: number;
  /** The simulator's receipt delay. */
  readonly delayMs: number;
  /** The connector's window (and the bare client's): submit_sm in flight at once, over all binds. */
  readonly window: number;
  /** A run not done by then ends, and its rate counts the messages delivered so far (BENCH_SMPP_MAX_SECONDS). */
  readonly maxSeconds: number;
  /** The share of submit_sm the simulator answers ESME_RTHROTTLED in the throttled run. */
  readonly throttledShare: number;
}

const SENDER = 'Bench';
const HZ = 100;

/** What a run measured, and on what. */
interface Run {
  readonly rate: number;
  readonly delivered: number;
  readonly seconds: number;
  readonly finished: boolean;
  readonly cpu: CpuShares;
}

/**
 * `BENCH_ONLY=smpp`: what limits SMS over SMPP on this machine, in one run, against the SMSC simulator (in this
 * process) with receipts after `delayMs`:
 * - the ceiling: a bare SMPP client (bench/smppClient.ts, a process of its own, no database, no HTTP) submitting
 *   `messages` with the same window, encoding and receipt delay, over 1 bind and over 2;
 * - Herald end to end (one process, role all, PostgreSQL): `messages` SMS accepted through the API in 1000-message
 *   batches, submitted, their receipts recorded, until the last is `delivered` in the database; over 1 bind and over
 *   2 (`sessions: 2`, the same window shared);
 * - the same with the simulator answering ESME_RTHROTTLED to `throttledShare` of the submits (every fifth for 0.2):
 *   goodput, the messages delivered (each accepted once) per second, as a share of the unthrottled run.
 * Each run says where the CPU went: Herald, PostgreSQL, this process (simulator and API clients), the bare client,
 * and everything else on the machine.
 */
export async function benchSmpp(options: SmppBenchOptions): Promise<BenchFigure[]> {
  const say = (line: string): void => void process.stdout.write(`  ${line}\n`);
  const bare1 = await bareRun(options, 1);
  say(`bare client, 1 bind: ${describe(bare1)}`);
  const bare2 = await bareRun(options, 2);
  say(`bare client, 2 binds: ${describe(bare2)}`);
  const one = await heraldRun(options, 1, 0);
  say(`Herald, 1 bind: ${describe(one)}`);
  const two = await heraldRun(options, 2, 0);
  say(`Herald, 2 binds: ${describe(two)}`);
  const throttled = await heraldRun(options, 1, options.throttledShare);
  say(`Herald, 1 bind, ${options.throttledShare * 100} % throttled: ${describe(throttled)}`);

  const link = `window ${options.window}, receipts after ${options.delayMs} ms`;
  // Two binds can only go 1.5 times as fast as one if the link itself allows it: when a bare client gains less from a
  // second bind, or its 2-bind ceiling is under 1.5 x Herald's 1-bind rate, the simulator is the limit.
  const bareGain = bare2.rate / bare1.rate;
  const simulatorLimits = bareGain < 1.5 || bare2.rate < 1.5 * one.rate;
  const speedUp = two.rate / one.rate;
  // A second bind cannot help a run whose cores are full: say so beside the 1.5 x target.
  const coresFull = two.cpu.verdict.startsWith("the machine's");
  say('what limits what:');
  say(
    `  the link (bare client): ${Math.round(bare1.rate)} msg/s over 1 bind, ${Math.round(bare2.rate)} over 2 ` +
      `(x ${bareGain.toFixed(2)})` +
      (simulatorLimits ? ': the simulator is the limit of what a second bind can add' : ''),
  );
  for (const [name, run] of [
    ['Herald, 1 bind', one],
    ['Herald, 2 binds', two],
    ['Herald, throttled', throttled],
  ] as const)
    say(`  ${name}: ${run.cpu.verdict}`);
  return [
    {
      name: 'smpp: bare client ceiling, 1 bind',
      value: bare1.rate,
      unit: 'msg/s',
      note: `${options.bareMessages} SMS, ${link}; ${bare1.cpu.text}`,
    },
    { name: 'smpp: bare client ceiling, 2 binds', value: bare2.rate, unit: 'msg/s', note: bare2.cpu.text },
    {
      name: 'smpp: Herald 1 bind, accepted -> delivered',
      value: one.rate,
      unit: 'msg/s',
      note: `${options.messages} SMS, ${link}, ${options.clients} clients, 1 process (all); ${one.cpu.text}`,
    },
    {
      // What a message costs whatever else runs on the machine: the figure that varies least from run to run.
      name: 'smpp: CPU per message, bare link',
      value: (bare1.cpu.ownSeconds * 1000) / bare1.delivered,
      unit: 'ms',
      note: `the bare client and the simulator, 1 bind: ${onFreeCores(bare1)} msg/s on ${os.cpus().length} free cores`,
    },
    {
      name: 'smpp: CPU per message, Herald 1 bind',
      value: (one.cpu.ownSeconds * 1000) / one.delivered,
      unit: 'ms',
      note:
        `Herald, its PostgreSQL backends, the simulator and the API clients: ${onFreeCores(one)} msg/s ` +
        `on ${os.cpus().length} free cores`,
    },
    {
      name: 'smpp: Herald 1 bind / bare ceiling',
      value: (one.rate / bare1.rate) * 100,
      unit: '%',
      target: { op: '>=', value: 50 },
    },
    { name: 'smpp: Herald 2 binds, accepted -> delivered', value: two.rate, unit: 'msg/s', note: two.cpu.text },
    {
      name: 'smpp: Herald 2 binds / 1 bind',
      value: speedUp,
      unit: 'x',
      ...(simulatorLimits
        ? {
            note:
              bareGain < 1.5
                ? `no target: the simulator is the limit (a bare client gains x ${bareGain.toFixed(2)} ` +
                  `from a second bind)`
                : `no target: the simulator is the limit (its bare 2-bind ceiling, ${Math.round(bare2.rate)} ` +
                  `msg/s, is under 1.5 x Herald's 1 bind, ${Math.round(1.5 * one.rate)} msg/s)`,
          }
        : {
            target: { op: '>=' as const, value: 1.5 },
            ...(coresFull ? { note: `the 2-bind run was bound by ${two.cpu.verdict}` } : {}),
          }),
    },
    {
      name: `smpp: Herald ${options.throttledShare * 100} % throttled, goodput`,
      value: throttled.rate,
      unit: 'msg/s',
      note:
        `${throttled.finished ? '' : `stopped after ${options.maxSeconds} s, `}` +
        `${throttled.delivered} of ${options.messages} delivered; ${throttled.cpu.text}`,
    },
    {
      name: 'smpp: throttled goodput / unthrottled',
      value: (throttled.rate / one.rate) * 100,
      unit: '%',
      target: { op: '>=', value: 70 },
    },
  ];
}

/** The rate a run's own CPU per message would allow if every core of the machine were its own. */
function onFreeCores(run: Run): number {
  return Math.round((os.cpus().length * run.delivered) / run.cpu.ownSeconds);
}

function describe(run: Run): string {
  return (
    `${Math.round(run.rate)} msg/s (${run.delivered} in ${run.seconds.toFixed(1)} s` +
    `${run.finished ? '' : ', stopped'}); ${run.cpu.text}`
  );
}

async function withSimulators<T>(options: SmppBenchOptions, run: (sim: EmbeddedSimulators) => Promise<T>): Promise<T> {
  const simulators = await startEmbeddedSimulators({ delayMs: options.delayMs, window: options.window, mps: 100_000 });
  simulators.smsc.recordSubmissions(false);
  simulators.providers.recordRequests(false);
  try {
    return await run(simulators);
  } finally {
    await simulators.stop();
  }
}

/** The bare client over `sessions` binds: submit_sm until every receipt has come. */
function bareRun(options: SmppBenchOptions, sessions: number): Promise<Run> {
  return withSimulators(options, async (simulators) => {
    const connector = simulators.configFile.connectors.find((c) => c.type === 'smpp') as SmppConnectorConfig;
    // From the client's binds on: not Node starting and compiling the client.
    let cpu: ReturnType<typeof watchMachine> | undefined;
    const result = await runSmppClient(
      {
        port: simulators.smsc.port,
        systemId: connector.systemId,
        password: connector.password,
        sessions,
        window: options.window,
        messages: options.bareMessages,
      },
      () => (cpu = watchMachine({}, 'simulator')),
    );
    const used = cpu!.stop({ 'bare client': result.cpuSeconds });
    return {
      rate: result.receipts / result.seconds,
      delivered: result.receipts,
      seconds: result.seconds,
      finished: true,
      cpu: used,
    };
  });
}

/** What bench/smppClient.ts is told: the server, its bind and the load. */
export interface SmppClientOptions {
  /** 127.0.0.1 by default. */
  readonly host?: string;
  readonly port: number;
  readonly systemId: string;
  readonly password: string;
  readonly sessions: number;
  readonly window: number;
  readonly messages: number;
  /** The first message's number, which its destination carries: 0 by default (a warm-up's come after the run's). */
  readonly first?: number;
  /** source_addr: 'Bench' by default, the sender name of bench/endToEnd.ts's account. */
  readonly source?: string;
}

/** What it measured: from the first submit_sm to the last receipt, and its own CPU over that span. */
export interface SmppClientResult {
  readonly seconds: number;
  /** From the first submit_sm to the last submit_sm_resp. */
  readonly submitSeconds: number;
  /** Receipts the client had when the last submit_sm_resp came. */
  readonly receiptsAtSubmitted: number;
  readonly accepted: number;
  /** Refusals other than ESME_RTHROTTLED. */
  readonly refused: number;
  /** ESME_RTHROTTLED answers, each message sent again until taken. */
  readonly throttled: number;
  readonly receipts: number;
  readonly cpuSeconds: number;
}

/**
 * Runs bench/smppClient.ts as a process of its own (its CPU is not the benchmark's): `onBound` when its binds are up
 * and it starts submitting; resolves when it has every receipt, has answered each and has unbound (the process ends).
 */
export async function runSmppClient(client: SmppClientOptions, onBound?: () => void): Promise<SmppClientResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/smppClient.ts'], {
    env: { ...process.env, BENCH_SMPP_CLIENT: JSON.stringify(client) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let bound = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!bound && output.startsWith('bound\n')) {
      bound = true;
      onBound?.();
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`SMPP client exited with ${code}: ${output}`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as SmppClientResult;
}

/** Herald end to end over `sessions` binds, the simulator refusing `throttledShare` of submits as throttled. */
function heraldRun(options: SmppBenchOptions, sessions: number, throttledShare: number): Promise<Run> {
  return withSimulators(options, async (simulators) => {
    if (throttledShare > 0) simulators.smsc.refuseShare(SMPP_STATUS.RTHROTTLED, throttledShare);
    const schema = await createBenchSchema();
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-bench-'));
    const configPath = path.join(dir, 'herald.json');
    const sms = simulators.configFile.connectors.filter((c) => c.type === 'smpp').map((c) => ({ ...c, sessions }));
    writeFileSync(
      configPath,
      JSON.stringify({ connectors: sms, routes: simulators.configFile.routes.filter((r) => r.channel === 'SMS') }),
    );
    // Named, so that its PostgreSQL backends are told apart from other sessions' (other work on the same server).
    const heraldUrl = new URL(schema.url);
    heraldUrl.searchParams.set('application_name', schema.name);
    const herald = await startHeraldProcess('all', {
      ...benchHeraldEnv(heraldUrl.toString(), configPath),
    });
    const db = new pg.Pool({ connectionString: schema.url, max: 2 });
    const http = new Pool(herald.url, { connections: options.clients });
    try {
      const admin = async (p: string, body: unknown): Promise<any> => {
        const response = await http.request({
          method: 'POST',
          path: p,
          headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return response.body.json();
      };
      const account = await admin('/admin/v1/accounts', { name: 'bench smpp' });
      await admin(`/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name: SENDER });
      const token = account.tokens.traffic as string;
      // Every bind up before the clock starts.
      const deadline = Date.now() + 10_000;
      while (simulators.smsc.boundSessions < sessions) {
        if (Date.now() > deadline) throw new Error(`only ${simulators.smsc.boundSessions} of ${sessions} binds`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      const batches = Math.ceil(options.messages / 1000);
      const bodyOf = (b: number): string =>
        batchBody(b, 'SMS', SENDER, undefined, Math.min(1000, options.messages - b * 1000));
      const cpu = watchMachine({ herald: herald.child.pid! }, 'simulator and API clients');
      const start = performance.now();
      await postBatches({ pools: [http], path: '/api/v1/message', token, clients: options.clients, batches, bodyOf });
      // Done when no message waits to be sent or for its receipt (small partial indexes: cheap to poll).
      let finished = false;
      while (performance.now() - start < options.maxSeconds * 1000) {
        const waiting = await db.query(
          `SELECT EXISTS (SELECT 1 FROM messages WHERE status = 'sending')
               OR EXISTS (SELECT 1 FROM messages WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL) AS busy`,
        );
        if (!waiting.rows[0].busy) {
          finished = true;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const seconds = (performance.now() - start) / 1000;
      const backends = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
        schema.name,
      ]);
      const used = cpu.stop({}, { label: "Herald's postgres backends", pids: backends.rows.map((r) => r.pid) });
      const counted = await db.query("SELECT count(*)::int AS n FROM messages WHERE status = 'delivered'");
      const delivered = counted.rows[0].n as number;
      if (finished && delivered !== options.messages) throw new Error(`${delivered} of ${options.messages} delivered`);
      return { rate: delivered / seconds, delivered, seconds, finished, cpu: used };
    } finally {
      await http.close();
      await db.end();
      await herald.stop();
      await schema.drop();
    }
  });
}

/** CPU seconds over a run, by who used them, and how busy the machine was. */
interface CpuShares {
  readonly text: string;
  /** Which of the CPU (Herald's one core, the machine, other processes) bound the run, or none of it. */
  readonly verdict: string;
  /** CPU seconds of the run's own processes: the ones named, its PostgreSQL backends, and this process. */
  readonly ownSeconds: number;
}

/**
 * Watches every process's CPU time (Linux /proc) over a run: the named processes, PostgreSQL's (all `postgres`
 * processes: other sessions' queries too), this process (the simulator, and in Herald's runs the API clients), and
 * the rest of the machine (other work on a shared machine shows there), with the 1-minute load at the start.
 */
function watchMachine(
  named: Record<string, number>,
  self: string,
): { stop(exited?: Record<string, number>, backends?: { label: string; pids: readonly number[] }): CpuShares } {
  const before = processTimes();
  const stat0 = machineTimes();
  const self0 = process.cpuUsage();
  const load = os.loadavg()[0]!;
  const t0 = performance.now();
  return {
    /**
     * `exited`: the CPU seconds of named processes that ended before (their /proc entries are gone); `backends`: the
     * PostgreSQL backends of the process under test, counted apart from the server's other backends.
     */
    stop(exited = {}, backends = undefined) {
      const seconds = (performance.now() - t0) / 1000;
      const after = processTimes();
      const stat = machineTimes();
      // Time the cores sat idle while a process waited for the disk (PostgreSQL's commits, others' writes).
      const iowait = ((stat.iowait - stat0.iowait) / (stat.total - stat0.total)) * 100;
      const used = (pid: number): number => ((after.get(pid)?.ticks ?? 0) - (before.get(pid)?.ticks ?? 0)) / HZ;
      const mine = process.cpuUsage(self0);
      const selfSeconds = (mine.user + mine.system) / 1e6;
      let postgres = 0;
      let all = 0;
      for (const [pid, p] of after) {
        const d = (p.ticks - (before.get(pid)?.ticks ?? 0)) / HZ;
        all += d;
        if (p.comm === 'postgres') postgres += d;
      }
      const namedSeconds: Record<string, number> = {
        ...Object.fromEntries(Object.entries(named).map(([name, pid]) => [name, used(pid)])),
        ...exited,
      };
      for (const s of Object.values(exited)) all += s;
      if (backends) {
        const own = backends.pids.reduce((sum, pid) => sum + used(pid), 0);
        namedSeconds[backends.label] = own;
        postgres -= own;
      }
      const others = all - postgres - selfSeconds - Object.values(namedSeconds).reduce((a, b) => a + b, 0);
      const cores = os.cpus().length;
      const parts = [
        ...Object.entries(namedSeconds).map(([name, s]) => `${name} ${s.toFixed(1)}`),
        `${backends ? 'other postgres' : 'postgres'} ${postgres.toFixed(1)}`,
        `${self} ${selfSeconds.toFixed(1)}`,
        `other processes ${Math.max(0, others).toFixed(1)}`,
      ];
      // The bare client's own CPU covers its span, a little shorter than this one's.
      const busy = Math.min(100, (all / (seconds * cores)) * 100);
      const share = (s: number): string => `${((s / seconds) * 100).toFixed(0)} % of a core`;
      const main = Object.entries(namedSeconds)[0];
      // Other work: other processes, and the server's other backends when the run's own are known.
      const foreign = others + (backends ? postgres : 0);
      const ours = [
        ...Object.entries(namedSeconds).map(([name, s]) => `${name} ${share(s)}`),
        ...(backends ? [] : [`postgres ${share(postgres)}`]),
      ].join(', ');
      // Cores mostly busy bound the run, whoever used them (the load average lags too much to tell); else one
      // process may be (Node runs on one core), or nothing of the CPU is: the run waited (the SMSC, pauses, polling).
      const verdict =
        busy >= 80
          ? `the machine's ${cores} cores: ${busy.toFixed(0)} % busy, ` +
            (foreign / all >= 0.3
              ? `other work took ${((foreign / all) * 100).toFixed(0)} % of it (${ours})`
              : `nearly all by the run itself (${ours}, ${self} ${share(selfSeconds)})`)
          : main && main[1] / seconds >= 0.9
            ? `${main[0]}'s one process: ${share(main[1])}`
            : `waiting, not CPU: ${ours}, the machine ${busy.toFixed(0)} % busy, ${iowait.toFixed(0)} % in I/O wait`;
      return {
        verdict,
        ownSeconds: Object.values(namedSeconds).reduce((a, b) => a + b, 0) + selfSeconds,
        text:
          `CPU s: ${parts.join(', ')} of ${(seconds * cores).toFixed(1)} ` +
          `(${cores} cores x ${seconds.toFixed(1)} s; machine ${busy.toFixed(0)} % busy, ` +
          `${iowait.toFixed(0)} % in I/O wait, ` +
          `load ${load.toFixed(1)} at the start)`,
      };
    },
  };
}

/** utime + stime of every process, in clock ticks. */
function processTimes(): Map<number, { comm: string; ticks: number }> {
  const times = new Map<number, { comm: string; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      times.set(Number(entry), { comm, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // Gone meanwhile.
    }
  }
  return times;
}

/** The machine's CPU time (/proc/stat's first line): all of it, and the part idle in I/O wait, in clock ticks. */
function machineTimes(): { total: number; iowait: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: cpu.reduce((a, b) => a + b, 0), iowait: cpu[4]! };
}
