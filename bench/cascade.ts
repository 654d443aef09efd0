import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { Pool } from 'undici';
import { startEmbeddedSimulators } from '../src/simulators/embeddedSimulators.js';
import {
  cascadeTiming,
  channelQueues,
  checkOutcomes,
  KINDS,
  runningCascades,
  stepCounts,
  stepLags,
} from './cascadeReport.js';
import {
  type BenchFigure,
  type BenchSchema,
  percentile,
  postBatches,
  startHeraldProcess,
  watchCpu,
  BENCH_ADMIN_TOKEN,
  benchHeraldEnv,
} from './lib.js';

/** The plain end-to-end figure of the same run the cascades are compared with. */
export interface PlainRate {
  /** SMS per second, first POST to last `delivered`. */
  readonly msgPerSecond: number;
  readonly messages: number;
  /** Herald's CPU time per message, ms. */
  readonly cpuMsPerMessage: number;
}

export interface CascadeOptions {
  readonly schema: BenchSchema;
  readonly cascades: number;
  readonly clients: number;
  readonly delayMs: number;
  readonly plain: PlainRate;
}

const SENDER = 'Bench';
/** The VK step's lifetime, the shortest VK allows: a delivered, never-read VK step waits this long to be `unread`. */
const VK_TTL_SECONDS = 60;
/** The target: cascades per second (after the unread waits) against the plain SMS rate of the same run. */
const TARGET_SHARE = 0.5;
const STUCK_AFTER_MS = 600_000;

/**
 * Cascades end to end: Herald (one process, role all, PostgreSQL) takes `cascades` three-step cascades, VK
 * (not_read, ttl 60) -> VIBER (not_delivered) -> SMS, in 1000-cascade batches from `clients` concurrent clients;
 * VK and VIBER go to the provider simulator over HTTP (each status comes back as a signed webhook), SMS to the
 * SMSC simulator over SMPP, every report after `delayMs` (a read after twice that). A third of the destinations
 * end at each step: last digit 0 (VK read), 6 (VK delivered and never read: `unread` when its 60 s lifetime ends,
 * then VIBER delivered), 7 (undelivered everywhere). The run ends when no cascade is `running` in the cascades
 * table. A VK step still queued when its lifetime ends is `unsent`, and its cascade moves on to VIBER: counted and
 * shown, since it means VK went slower than the cascades came.
 *
 * The rate held against plain SMS: a third of the cascades must sit out their VK step's whole 60 s lifetime before
 * their next step can exist, so the run's elapsed time says more about the ttl than about Herald (100,000 cascades
 * at any speed take over 60 s). Each cascade's end is therefore counted less the lifetimes it waited through unread
 * (60 s for the 6s that were read-tracked, nothing for the others), and the run's time is the latest of these ends
 * after the first request: "cascades per second after the unread waits". Cascades that wait for nothing count at
 * their real end, so work done during the waits is not hidden; the 6s' VIBER steps run after their wait, when the
 * rest is mostly done, which flatters them a little. Steps (messages) per second over the same time are reported
 * beside it: a cascade here is two messages on average (1, 2 or 3), so cascades/s >= 50 % of plain msg/s asks
 * cascade steps to move about as fast as plain SMS, though two thirds of them go over HTTP with a webhook per status.
 */
export async function benchCascade(options: CascadeOptions): Promise<BenchFigure[]> {
  const simulators = await startEmbeddedSimulators({ delayMs: options.delayMs, window: 1000, mps: 100_000 });
  simulators.smsc.recordSubmissions(false);
  simulators.providers.recordRequests(false);
  // Unlike the plain benchmark (SMS only), the routes of the cascade's three channels.
  const channels = new Set(['SMS', 'VK', 'VIBER']);
  const routes = simulators.configFile.routes.filter((r) => channels.has(r.channel));
  const connectorIds = new Set(routes.flatMap((r) => r.connectors));
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-bench-'));
  const configPath = path.join(dir, 'herald.json');
  writeFileSync(
    configPath,
    JSON.stringify({ connectors: simulators.configFile.connectors.filter((c) => connectorIds.has(c.id)), routes }),
  );
  const herald = await startHeraldProcess('all', {
    ...benchHeraldEnv(options.schema.url, configPath),
  });
  const log = watchLog([herald.child.stdout!, herald.child.stderr!]);
  simulators.connectWebhooks(herald.url);
  const db = new pg.Pool({ connectionString: options.schema.url, max: 2 });
  const http = new Pool(herald.url, { connections: options.clients });
  try {
    const call = async (method: 'POST' | 'PATCH', p: string, body: unknown): Promise<any> => {
      const response = await http.request({
        method,
        path: p,
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = await response.body.json();
      if (response.statusCode >= 300) throw new Error(`${method} ${p}: ${JSON.stringify(answer)}`);
      return answer;
    };
    const account = await call('POST', '/admin/v1/accounts', { name: 'bench cascades' });
    await call('PATCH', `/admin/v1/accounts/${account.id}`, { channels: { VK: true, VIBER: true } });
    await call('POST', `/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name: SENDER });
    const token = account.tokens.traffic as string;

    const total = options.cascades;
    const batches = Math.ceil(total / 1000);
    const stepFields = [
      { channelType: 'VK', senderName: 'club1', ttl: VK_TTL_SECONDS, condition: 'not_read' },
      { channelType: 'VIBER', senderName: 'Shop', condition: 'not_delivered' },
      { channelType: 'SMS', senderName: SENDER },
    ];
    // Built as sent, as in the plain benchmark.
    const bodyOf = (b: number): string =>
      JSON.stringify(
        Array.from({ length: Math.min(1000, total - b * 1000) }, (_, i) => {
          const n = b * 1000 + i;
          const digit = KINDS[n % KINDS.length]!.digit;
          return {
            destination: `7916${String(Math.floor(n / KINDS.length) % 1_000_000).padStart(6, '0')}${digit}`,
            cascade: stepFields.map((fields) => ({ ...fields, content: `Your code ${String(n % 10_000)}` })),
          };
        }),
      );
    const cpu = watchCpu(herald.child.pid!);
    const startedAt = new Date();
    const start = performance.now();
    const postLatencies = await postBatches({
      pools: [http],
      path: '/api/v1/message/cascade',
      token,
      clients: options.clients,
      batches,
      bodyOf,
    });
    const acceptedS = (performance.now() - start) / 1000;
    verbose(`all ${total} cascades accepted after ${acceptedS.toFixed(1)} s`);

    // Done when no cascade is running, looked at once a second (the end time itself is read from the rows afterwards:
    // the polling interval does not enter the figure). EXISTS stops at the first running cascade: counting the ended
    // ones on their partial index took 120 ms of PostgreSQL's time per look at 20,000 cascades, under the run.
    let lastReport = 0;
    const endedCount = async (): Promise<number> =>
      (await db.query('SELECT count(*)::int AS n FROM cascades WHERE ended_at IS NOT NULL')).rows[0].n;
    for (;;) {
      const running = await db.query('SELECT EXISTS (SELECT 1 FROM cascades WHERE ended_at IS NULL) AS any');
      if (!running.rows[0].any) break;
      const now = performance.now();
      if (now - start - acceptedS * 1000 > STUCK_AFTER_MS) {
        await reportTrouble(db, log.lines());
        throw new Error(
          `${total - (await endedCount())} of ${total} cascades still running ` +
            `${STUCK_AFTER_MS / 1000} s after the last was accepted`,
        );
      }
      if (process.env.BENCH_VERBOSE && now - lastReport > 10_000) {
        lastReport = now;
        verbose(`${((now - start) / 1000).toFixed(0)} s: ${await endedCount()} ended, ${await stepCounts(db)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const used = cpu.stop();

    const warnings = log.stop();
    if (warnings.length > 0) {
      process.stdout.write(`  Herald logged ${warnings.length} warnings or errors, the first:\n`);
      for (const line of warnings.slice(0, 5)) process.stdout.write(`    ${line.slice(0, 400)}\n`);
    }
    const problems = await checkOutcomes(db, account.id, total);
    if (problems.length > 0) {
      process.stdout.write(`  cascades did not end as their destinations say:\n    ${problems.join('\n    ')}\n`);
      await reportTrouble(db, []);
      throw new Error("cascade outcomes differ from the simulators' (see above)");
    }
    const timing = await cascadeTiming(db, account.id, startedAt);
    const lags = await stepLags(db, account.id, startedAt);
    const queues = await channelQueues(db, account.id, startedAt);
    postLatencies.sort((a, b) => a - b);

    const rate = total / timing.afterWaitsS;
    const plain = options.plain.msgPerSecond;
    const share = (value: number): string => `${((value / plain) * 100).toFixed(0)} %`;
    const vk = queues.find((q) => q.channel === 'VK');
    // The choice of rate, said where the figure is read (see the doc comment above).
    process.stdout.write(
      `  ${total} cascades ended ${timing.elapsedS.toFixed(1)} s after the first request. Rate after the unread ` +
        `waits: each cascade's end less the ${VK_TTL_SECONDS} s its VK step had to wait to become unread ` +
        `(${timing.unread} cascades; no Herald ends those sooner), the latest: ${timing.afterWaitsS.toFixed(1)} s ` +
        `(cascades that waited for no lifetime ended by ${timing.unwaitedS.toFixed(1)} s).\n` +
        `  ${rate.toFixed(0)} cascades/s against ${plain.toFixed(0)} plain SMS/s of this run: ${share(rate)}, ` +
        `target ${TARGET_SHARE * 100} %; ${(timing.steps / timing.afterWaitsS).toFixed(0)} steps/s, ` +
        `${share(timing.steps / timing.afterWaitsS)}\n`,
    );
    if (vk && vk.unsent > 0)
      process.stdout.write(
        `  ${vk.unsent} VK steps were still queued when their ${VK_TTL_SECONDS} s lifetime ended (unsent, so their ` +
          `cascades went on to VIBER): VK was sent slower than cascades came\n`,
      );
    return [
      {
        name: 'cascades: completed after the unread waits',
        value: rate,
        unit: 'cascades/s',
        target: { op: '>=', value: TARGET_SHARE * plain },
        note:
          `${total} VK(not_read, ttl ${VK_TTL_SECONDS})->VIBER(not_delivered)->SMS, destinations ending 0/6/7; ` +
          `${timing.afterWaitsS.toFixed(1)} s: each cascade's end less the ${VK_TTL_SECONDS} s it waited for an ` +
          `unread, the latest; ${share(rate)} of this run's plain e2e, ${plain.toFixed(0)} msg/s ` +
          `(${options.plain.messages} SMS); target ${TARGET_SHARE * 100} % of it`,
      },
      {
        name: 'cascades: steps (messages) after the unread waits',
        value: timing.steps / timing.afterWaitsS,
        unit: 'msg/s',
        note: `${timing.steps} messages, ${share(timing.steps / timing.afterWaitsS)} of the plain e2e rate`,
      },
      {
        name: 'cascades: completed, wall clock',
        value: total / timing.elapsedS,
        unit: 'cascades/s',
        note:
          `first request -> last cascade ended: ${timing.elapsedS.toFixed(1)} s (${VK_TTL_SECONDS} s of it at least ` +
          `a lifetime's wait); cascades that waited for no lifetime ended by ${timing.unwaitedS.toFixed(1)} s`,
      },
      {
        name: 'cascades: first steps created (accepted)',
        value: total / acceptedS,
        unit: 'cascades/s',
        note:
          `${acceptedS.toFixed(1)} s for ${batches} POSTs of up to 1000, ${options.clients} clients, POST p50 ` +
          `${percentile(postLatencies, 50).toFixed(0)} ms, p99 ${percentile(postLatencies, 99).toFixed(0)} ms`,
      },
      ...lags.map((l): BenchFigure => ({
        name: `cascades: step ${l.step} created after ${l.trigger} p50`,
        value: l.p50,
        unit: 'ms',
        note:
          `p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms, ${l.n} steps created ` +
          `${l.firstS.toFixed(1)}-${l.lastS.toFixed(1)} s into the run; from ` +
          (l.trigger === 'unread' ? "the end of the previous step's lifetime" : "the previous step's outcome"),
      })),
      ...queues.map((q): BenchFigure => ({
        name: `cascades: ${q.channel} steps created -> sent p50`,
        value: q.p50,
        unit: 'ms',
        note:
          `p99 ${q.p99.toFixed(0)} ms; ${q.sent} of ${q.created} sent ${q.firstSentS.toFixed(1)}-` +
          `${q.lastSentS.toFixed(1)} s into the run` +
          (q.unsent > 0 ? `, ${q.unsent} unsent (lifetime over in the queue)` : ''),
      })),
      {
        name: 'cascades: Herald CPU per step',
        value: (used.processSeconds * 1000) / timing.steps,
        unit: 'ms',
        note:
          `${used.processSeconds.toFixed(1)} CPU s for ${timing.steps} messages (plain SMS: ` +
          `${options.plain.cpuMsPerMessage.toFixed(2)} ms per message); the benchmark process (clients, ` +
          `simulators) ${used.selfSeconds.toFixed(1)} CPU s; the machine ${used.machineBusyPercent.toFixed(0)} % ` +
          `busy over ${used.seconds.toFixed(0)} s, 1-min load ${used.loadStart.toFixed(1)} at the start, ` +
          `${used.loadEnd.toFixed(1)} at the end`,
      },
    ];
  } finally {
    log.stop();
    await http.close();
    await db.end();
    await herald.stop();
    await simulators.stop();
  }
}

/** What the running cascades wait for, the messages by step and status, and Herald's warnings. */
async function reportTrouble(db: pg.Pool, herald: readonly string[]): Promise<void> {
  process.stdout.write('  running cascades by their current step:\n');
  for (const line of await runningCascades(db)) process.stdout.write(`    ${line}\n`);
  process.stdout.write(`  messages by step: ${await stepCounts(db)}\n`);
  for (const line of herald.slice(0, 20)) process.stdout.write(`  herald: ${line.slice(0, 400)}\n`);
}

/** Keeps Herald's log lines at warn level or above (pino's JSON: level >= 40), and any line that is not JSON. */
function watchLog(streams: Readable[]): { lines(): string[]; stop(): string[] } {
  const kept: string[] = [];
  const partial = new Map<Readable, string>();
  const listeners = streams.map((stream) => {
    const onData = (chunk: Buffer): void => {
      const text = (partial.get(stream) ?? '') + chunk.toString();
      const lines = text.split('\n');
      partial.set(stream, lines.pop() ?? '');
      for (const line of lines) {
        const level = /"level":(\d+)/.exec(line);
        if ((level ? Number(level[1]) >= 40 : line.trim() !== '') && kept.length < 1000) kept.push(line);
      }
    };
    stream.on('data', onData);
    return () => stream.off('data', onData);
  });
  return {
    lines: () => kept,
    stop() {
      for (const off of listeners.splice(0)) off();
      return kept;
    },
  };
}

function verbose(text: string): void {
  if (process.env.BENCH_VERBOSE) process.stdout.write(`  ${text}\n`);
}
