import { loadavg } from 'node:os';
import { Pool } from 'undici';
import {
  type BenchFigure,
  type BenchSchema,
  percentile,
  startHeraldProcess,
  startSmsSimulators,
  BENCH_ADMIN_TOKEN,
  benchHeraldEnv,
} from './lib.js';

export interface PriorityOptions {
  readonly schema: BenchSchema;
  /** PROMO messages queued in a dispatch before it starts. */
  readonly promos: number;
  /** Seconds of authorisation codes in each phase (idle, then under the PROMO flood). */
  readonly seconds: number;
  readonly clients: number;
  /** An api process and a worker process instead of one process of both roles. */
  readonly split: boolean;
}

const SENDER = 'Bench';
const CODES_PER_SECOND = 50;
/** Codes go to 7999..., promotions to 7916...: the simulator keeps the codes' submissions only. */
const CODE_PREFIX = '7999';
const TARGET_P99_MS = 250;
const TARGET_RATIO = 2;
/** Codes sent first and not measured. */
const WARM_UP_SECONDS = 3;
/** How long after the dispatch starts before codes are measured: the flood at full speed. */
const RAMP_MS = 5000;

/**
 * Priority lanes: AUTHORIZE SMS at 50 a second, each its own POST, first on an idle Herald, then while a dispatch
 * of `promos` PROMO SMS (queued first, then started) goes out through the same SMSC connector at full speed.
 * Latency is from the moment the code's POST is sent to the moment the SMSC simulator (in this process, on the same
 * clock) receives its submit_sm: what the code's owner waits for, whatever lane it took inside Herald. Herald runs
 * as one process (role all; with `split`, an api and a worker process) on PostgreSQL; the connector's window is
 * 1000, of which 20 % is kept for urgent messages.
 */
export async function benchPriority(options: PriorityOptions): Promise<BenchFigure[]> {
  const { simulators, configPath } = await startSmsSimulators();
  simulators.smsc.recordSubmissions((destination) => destination.startsWith(CODE_PREFIX));
  const env = {
    ...benchHeraldEnv(options.schema.url, configPath),
  };
  const herald = await startHeraldProcess(options.split ? 'api' : 'all', env);
  const worker = options.split ? await startHeraldProcess('worker', env, /SMPP session bound/) : undefined;
  simulators.connectWebhooks(herald.url);
  const http = new Pool(herald.url, { connections: options.clients + 8 });
  try {
    const call = async (auth: string, method: 'POST' | 'PATCH', p: string, body: unknown): Promise<any> => {
      const response = await http.request({
        method,
        path: p,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = await response.body.json();
      if (response.statusCode >= 300) throw new Error(`${method} ${p}: ${JSON.stringify(answer)}`);
      return answer;
    };
    const admin = `Bearer ${BENCH_ADMIN_TOKEN}`;
    const account = await call(admin, 'POST', '/admin/v1/accounts', { name: 'bench priority' });
    await call(admin, 'POST', `/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name: SENDER });
    const client = `Basic ${account.tokens.traffic as string}`;

    let codeSeq = 0;
    /**
     * Sends codes at CODES_PER_SECOND for `seconds`; returns each one's latency to its submit_sm and to the answer
     * of its POST, sorted.
     */
    const codes = async (seconds = options.seconds): Promise<{ submitted: number[]; answered: number[] }> => {
      const sentAt = new Map<string, number>();
      const answered: number[] = [];
      const posts: Promise<unknown>[] = [];
      const start = Date.now();
      const count = seconds * CODES_PER_SECOND;
      for (let i = 0; i < count; i++) {
        const due = start + (i * 1000) / CODES_PER_SECOND;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        const destination = `${CODE_PREFIX}${String(++codeSeq).padStart(7, '0')}`;
        const at = Date.now();
        sentAt.set(destination, at);
        posts.push(
          call(client, 'POST', '/api/v1/message', [
            {
              channelType: 'SMS',
              senderName: SENDER,
              destination,
              content: 'Your code 4321',
              trafficType: 'AUTHORIZE',
            },
          ]).then(() => answered.push(Date.now() - at)),
        );
      }
      await Promise.all(posts);
      const arrived = new Map<string, number>();
      const deadline = Date.now() + 60_000;
      while (arrived.size < sentAt.size && Date.now() < deadline) {
        for (const s of simulators.smsc.submissions.splice(0)) arrived.set(s.destination, s.at);
        if (arrived.size < sentAt.size) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (arrived.size < sentAt.size) throw new Error(`${sentAt.size - arrived.size} codes never reached the SMSC`);
      return {
        submitted: [...sentAt].map(([destination, at]) => arrived.get(destination)! - at).sort((a, b) => a - b),
        answered: answered.sort((a, b) => a - b),
      };
    };

    // Not measured: the first requests of a new process compile their code paths.
    await codes(WARM_UP_SECONDS);
    process.stdout.write(`  idle: ${options.seconds * CODES_PER_SECOND} codes at ${CODES_PER_SECOND}/s...\n`);
    const { submitted: idle, answered: idleAnswered } = await codes();

    const dispatch = await call(client, 'POST', '/api/v1/dispatch', {
      dispatchName: 'bench promotion',
      channelType: 'SMS',
      senderName: SENDER,
      content: 'Everything half price today only',
      trafficType: 'PROMO',
    });
    const id = dispatch.dispatchId as string;
    const batches = Math.ceil(options.promos / 1000);
    let next = 0;
    const addStart = performance.now();
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (next < batches) {
          const b = next++;
          const items = Array.from({ length: Math.min(1000, options.promos - b * 1000) }, (_, i) => ({
            // Last digit 0: delivered.
            destination: `7916${String((b * 1000 + i) % 1_000_000).padStart(6, '0')}0`,
          }));
          await call(client, 'POST', `/api/v1/dispatch/${id}/messages`, items);
        }
      }),
    );
    const addSeconds = (performance.now() - addStart) / 1000;
    process.stdout.write(`  ${options.promos} PROMO messages queued in ${addSeconds.toFixed(1)} s; starting\n`);
    const before = simulators.smsc.submitCount;
    await call(client, 'POST', `/api/v1/dispatch/${id}/start`, {});
    await new Promise((resolve) => setTimeout(resolve, RAMP_MS));
    const floodFrom = simulators.smsc.submitCount;
    const floodStart = performance.now();
    process.stdout.write(
      `  under the flood: ${options.seconds * CODES_PER_SECOND} codes at ${CODES_PER_SECOND}/s...\n`,
    );
    const { submitted: loaded, answered: loadedAnswered } = await codes();
    const floodRate = (simulators.smsc.submitCount - floodFrom) / ((performance.now() - floodStart) / 1000);
    const sentBefore = simulators.smsc.submitCount - before;
    const load = loadavg()[0]!.toFixed(1);
    if (sentBefore >= options.promos) {
      process.stdout.write('  warning: the dispatch ended before the codes were measured: queue more PROMO messages\n');
    }
    await call(client, 'POST', `/api/v1/dispatch/${id}/stop`, {});

    const p = (sorted: number[], q: number) => percentile(sorted, q);
    const ratio = p(loaded, 99) / Math.max(1, p(idle, 99));
    process.stdout.write(
      `  codes accept -> submit_sm: idle p50 ${p(idle, 50).toFixed(0)} ms, p99 ${p(idle, 99).toFixed(0)} ms; ` +
        `under ${floodRate.toFixed(0)} PROMO/s p50 ${p(loaded, 50).toFixed(0)} ms, ` +
        `p99 ${p(loaded, 99).toFixed(0)} ms (${ratio.toFixed(2)}x idle); load average ${load}\n` +
        `  of which the POST's answer: idle p50 ${p(idleAnswered, 50).toFixed(0)} ms, ` +
        `p99 ${p(idleAnswered, 99).toFixed(0)} ms; under the flood p50 ${p(loadedAnswered, 50).toFixed(0)} ms, ` +
        `p99 ${p(loadedAnswered, 99).toFixed(0)} ms\n`,
    );
    return [
      { name: 'priority: AUTHORIZE -> submit_sm p50, idle', value: p(idle, 50), unit: 'ms' },
      { name: 'priority: AUTHORIZE -> submit_sm p99, idle', value: p(idle, 99), unit: 'ms' },
      { name: 'priority: AUTHORIZE -> submit_sm p50, PROMO flood', value: p(loaded, 50), unit: 'ms' },
      {
        name: 'priority: AUTHORIZE -> submit_sm p99, PROMO flood',
        value: p(loaded, 99),
        unit: 'ms',
        target: { op: '<=', value: TARGET_P99_MS },
        note: `${options.promos} PROMO queued in a dispatch, sent at ${floodRate.toFixed(0)}/s meanwhile`,
      },
      {
        name: 'priority: p99 under the flood / idle',
        value: ratio,
        unit: 'x',
        target: { op: '<=', value: TARGET_RATIO },
      },
      {
        name: 'priority: p50 under the flood / idle',
        value: p(loaded, 50) / Math.max(1, p(idle, 50)),
        unit: 'x',
      },
      { name: 'priority: PROMO sent during the codes', value: floodRate, unit: 'msg/s' },
      { name: 'priority: PROMO added to the dispatch', value: options.promos / addSeconds, unit: 'msg/s' },
    ];
  } finally {
    await http.close();
    await herald.stop();
    await worker?.stop();
    await simulators.stop();
  }
}
