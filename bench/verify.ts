import { Pool } from 'undici';
import {
  type BenchFigure,
  type BenchSchema,
  jsonCaller,
  percentile,
  startHeraldProcess,
  startSmsSimulators,
  uptime,
  BENCH_ADMIN_TOKEN,
  benchHeraldEnv,
} from './lib.js';

export interface VerifyBenchOptions {
  readonly schema: BenchSchema;
  /** Verifications (a send, then a check with the right code), and as many plain one-message sends. */
  readonly count: number;
  readonly clients: number;
}

const SENDER = 'Bench';
/** Codes go to 7999..., plain messages to 7916...: the simulator keeps the codes' submissions only. */
const CODE_PREFIX = '7999';
/** Verification sends per second against the plain rate of one-message batches (issue 16). */
const TARGET_SHARE = 50;
/** Of each kind, sent first and not measured: the first requests of a new process compile their code paths. */
const WARM_UP = 300;

/**
 * Verification (DESIGN 16) against plain sending, on one Herald process (role all, PostgreSQL), each phase with
 * `clients` concurrent clients, each client one request at a time:
 * 1. plain: `count` POST /api/v1/message with one SMS each (TOKEN_1);
 * 2. sends: `count` POST /api/v1/verifier/send (TOKEN_3) through a verifier whose workflow is one SMS step, each to
 *    its own destination (the limit of 5 sends per destination would refuse more; the per-address limit is off);
 * 3. checks: once every code has reached the SMSC simulator (in this process: the code is read from the text of
 *    its submit_sm, as the person would read it), `count` POST /api/v1/verifier/check with the right code.
 * The SMS of both phases go out through SMPP while they run, as in production. Figures: plain and verification
 * sends per second, their ratio (target >= 50 %), check latency p50 and p99 (from the request to its answer).
 */
export async function benchVerify(options: VerifyBenchOptions): Promise<BenchFigure[]> {
  const { simulators, configPath } = await startSmsSimulators();
  simulators.smsc.recordSubmissions((destination) => destination.startsWith(CODE_PREFIX));
  const herald = await startHeraldProcess('all', {
    ...benchHeraldEnv(options.schema.url, configPath),
    // Every send comes from this one address: a client server that keeps its own limit per user.
    HERALD_VERIFY_SENDS_PER_ADDRESS: '0',
    // Neither phase is held at the per-account request rate (200 a second by default): each runs as fast as it goes.
    HERALD_RATE_LIMIT: '0',
  });
  simulators.connectWebhooks(herald.url);
  const http = new Pool(herald.url, { connections: options.clients + 2 });
  const call = jsonCaller(http);
  try {
    const admin = `Bearer ${BENCH_ADMIN_TOKEN}`;
    const account = await call(admin, 'POST', '/admin/v1/accounts', { name: 'bench verify' });
    await call(admin, 'POST', `/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name: SENDER });
    const traffic = `Basic ${account.tokens.traffic as string}`;
    const system = `Basic ${account.tokens.system as string}`;
    const verifyToken = await call(admin, 'POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' });
    const verify = `Basic ${verifyToken.token as string}`;
    const verifier = await call(system, 'POST', '/api/v1/verifiers', {
      name: 'bench',
      brand: SENDER,
      // The longest lifetime: the first codes are checked only once every code is sent, minutes later.
      codeTtl: 3600,
      workflow: [{ channelType: 'SMS', senderName: SENDER, timeout: 60 }],
    });

    /** Runs `count` requests (`one(i)`) from the clients, each one at a time; returns the seconds and latencies. */
    const run = async (count: number, one: (i: number) => Promise<unknown>) => {
      const latencies: number[] = [];
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: options.clients }, async () => {
          while (next < count) {
            const i = next++;
            const at = performance.now();
            await one(i);
            latencies.push(performance.now() - at);
          }
        }),
      );
      return { seconds: (performance.now() - start) / 1000, latencies: latencies.sort((a, b) => a - b) };
    };
    let plainSeq = 0;
    const plain = () =>
      call(traffic, 'POST', '/api/v1/message', [
        {
          channelType: 'SMS',
          senderName: SENDER,
          // Last digit 0: delivered.
          destination: `7916${String(++plainSeq % 1_000_000).padStart(6, '0')}0`,
          content: 'Your order has shipped',
        },
      ]);
    let codeSeq = 0;
    const uuids = new Map<string, string>();
    const send = async () => {
      const destination = `${CODE_PREFIX}${String(++codeSeq).padStart(6, '0')}0`;
      const { uuid } = await call(verify, 'POST', '/api/v1/verifier/send', {
        gatewayId: verifier.gatewayId,
        destination,
      });
      uuids.set(destination, uuid as string);
    };

    process.stdout.write(`  load before: ${uptime()}\n`);
    await run(WARM_UP, plain);
    await run(WARM_UP, send);
    process.stdout.write(`  plain: ${options.count} one-message sends, ${options.clients} clients...\n`);
    const plainRun = await run(options.count, plain);
    process.stdout.write(`  verification: ${options.count} sends, ${options.clients} clients...\n`);
    const sendRun = await run(options.count, send);

    // Every code as the SMSC got it: "<brand>: <code>".
    const codes = new Map<string, string>();
    const deadline = Date.now() + 120_000;
    while (codes.size < uuids.size && Date.now() < deadline) {
      for (const s of simulators.smsc.submissions.splice(0)) codes.set(s.destination, /(\d+)$/.exec(s.text)![1]!);
      if (codes.size < uuids.size) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (codes.size < uuids.size) throw new Error(`${uuids.size - codes.size} codes never reached the SMSC`);
    const toCheck = [...uuids].slice(WARM_UP);
    const statuses = new Map<string, number>();
    process.stdout.write(
      `  verification: ${toCheck.length} checks with the right code, ${options.clients} clients...\n`,
    );
    const checkRun = await run(toCheck.length, async (i) => {
      const [destination, uuid] = toCheck[i]!;
      const { status } = await call(verify, 'POST', '/api/v1/verifier/check', { uuid, code: codes.get(destination) });
      statuses.set(status as string, (statuses.get(status as string) ?? 0) + 1);
    });
    if (statuses.get('CONFIRMED') !== toCheck.length)
      throw new Error(`not every check confirmed: ${JSON.stringify(Object.fromEntries(statuses))}`);
    const load = uptime();

    const plainRate = options.count / plainRun.seconds;
    const sendRate = options.count / sendRun.seconds;
    const share = (sendRate / plainRate) * 100;
    const p = (sorted: number[], q: number) => percentile(sorted, q);
    process.stdout.write(
      `  plain one-message sends: ${plainRate.toFixed(0)}/s (p50 ${p(plainRun.latencies, 50).toFixed(1)} ms); ` +
        `verification sends: ${sendRate.toFixed(0)}/s (p50 ${p(sendRun.latencies, 50).toFixed(1)} ms, ` +
        `p99 ${p(sendRun.latencies, 99).toFixed(1)} ms) = ${share.toFixed(0)} % of plain ` +
        `(target >= ${TARGET_SHARE} %)\n  checks: ${(toCheck.length / checkRun.seconds).toFixed(0)}/s, ` +
        `p50 ${p(checkRun.latencies, 50).toFixed(1)} ms, p99 ${p(checkRun.latencies, 99).toFixed(1)} ms, ` +
        `all ${toCheck.length} CONFIRMED\n  load after: ${load}\n`,
    );
    return [
      { name: 'verify: plain one-message sends', value: plainRate, unit: 'msg/s', note: `${options.clients} clients` },
      { name: 'verify: verification sends', value: sendRate, unit: 'sends/s', note: `${options.count} codes` },
      {
        name: 'verify: verification sends / plain sends',
        value: share,
        unit: '%',
        target: { op: '>=', value: TARGET_SHARE },
      },
      { name: 'verify: check latency p50', value: p(checkRun.latencies, 50), unit: 'ms' },
      { name: 'verify: check latency p99', value: p(checkRun.latencies, 99), unit: 'ms', note: load },
    ];
  } finally {
    await http.close();
    await herald.stop();
    await simulators.stop();
  }
}
