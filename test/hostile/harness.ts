import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CallOptions, Reply } from '../helpers/http.js';
import type { TestAccount, TestHerald } from '../helpers/testHerald.js';

/**
 * What an attack needs of a Herald: a test's in-process Herald (TestHerald has all of it) or, in the hostile
 * benchmark, a Herald process reached over HTTP.
 */
export type HeraldClient = Pick<TestHerald, 'url' | 'call' | 'admin' | 'createAccount'>;

/**
 * An attack, written once for its test (test/hostile/*.test.ts) and the hostile benchmark: `setup` makes what it
 * needs (an attacking account, a template, ...), `round` is one go of it; what it returns (a reply, or what a round
 * of many requests gathered) is for the test to check (refused, bounded).
 */
export interface Attack<State = unknown, Result = Reply> {
  readonly name: string;
  /** Rounds going at once (`underAttack`'s `concurrency`; default 1). */
  readonly concurrency?: number;
  setup(h: HeraldClient): Promise<State>;
  round(h: HeraldClient, state: State, round: number): Promise<Result>;
}

export type { CallOptions, Reply };

/** What a victim may suffer while another account (or anyone) attacks: the targets of issue 12. */
export const VICTIM_P99_MS = 200;
export const EVENT_LOOP_P99_MS = 100;

export interface Percentiles {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface VictimFigures {
  /** `GET /api/v1/ping` with the victim's token. */
  readonly ping: Percentiles;
  /** `POST /api/v1/message` with 10 SMS of the victim. */
  readonly send: Percentiles;
  /** Herald's event-loop delay while the attack ran (Herald runs in the test's own process). */
  readonly eventLoopP99Ms: number;
  readonly eventLoopMaxMs: number;
}

export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** A victim account with an approved SMS sender name, to measure while an attack runs. */
export async function createVictim(t: HeraldClient): Promise<TestAccount> {
  return t.createAccount({ senderNames: [['SMS', 'Victim']], balance: 0 });
}

const tenSms = Array.from({ length: 10 }, (_, i) => ({
  channelType: 'SMS',
  senderName: 'Victim',
  destination: `7916555${String(i).padStart(4, '0')}`,
  content: `victim ${i}`,
}));

/**
 * Runs `attack` (its rounds, one after another, as fast as they go) while a victim account pings and sends
 * 10-message batches in a loop of its own; stops when the attack has done at least `rounds` rounds and the victim
 * has made at least `probes` pings and sends. Returns what the attack returned from its rounds and the victim's
 * figures over exactly that time.
 */
export async function underAttack<T>(
  t: HeraldClient,
  victim: TestAccount,
  attack: (round: number) => Promise<T>,
  options: { rounds?: number; probes?: number; concurrency?: number; eventLoop?: EventLoopProbe } = {},
): Promise<{ results: T[]; figures: VictimFigures }> {
  const rounds = options.rounds ?? 5;
  // 100 probes at least: a p99 over fewer is their worst one, which a busy machine can spike on its own.
  const probes = options.probes ?? 100;
  const concurrency = options.concurrency ?? 1;
  const pings: number[] = [];
  const sends: number[] = [];
  const results: T[] = [];
  const loop = options.eventLoop ?? localEventLoop();
  let attackDone = false;
  let victimDone = false;

  const attacker = async (): Promise<void> => {
    let round = 0;
    while (round < rounds || !victimDone) results.push(await attack(round++));
  };
  const timed = async (samples: number[], work: () => Promise<{ status: number; body: unknown }>): Promise<void> => {
    const started = performance.now();
    const reply = await work();
    samples.push(performance.now() - started);
    if (reply.status >= 300) throw new Error(`the victim was refused: ${reply.status} ${JSON.stringify(reply.body)}`);
  };
  const prober = async (): Promise<void> => {
    while (!attackDone || pings.length < probes) {
      await timed(pings, () => t.call('GET', '/api/v1/ping', { token: victim.traffic }));
      await timed(sends, () => t.call('POST', '/api/v1/message', { token: victim.traffic, body: tenSms }));
      if (pings.length >= probes) victimDone = true;
      if (attackDone && pings.length >= probes) break;
    }
    victimDone = true;
  };

  await loop.start();
  let delay: { p99Ms: number; maxMs: number };
  try {
    const attackers = Array.from({ length: concurrency }, () => attacker());
    const victimLoop = prober();
    await Promise.all(attackers);
    attackDone = true;
    await victimLoop;
  } finally {
    delay = await loop.stop();
  }
  return {
    results,
    figures: {
      ping: percentiles(pings),
      send: percentiles(sends),
      eventLoopP99Ms: delay.p99Ms,
      eventLoopMaxMs: delay.maxMs,
    },
  };
}

/** Measures Herald's event-loop delay over an attack: in this process (tests), or a Herald process's (benchmark). */
export interface EventLoopProbe {
  start(): Promise<void>;
  stop(): Promise<{ p99Ms: number; maxMs: number }>;
}

/** Herald runs in this process (tests): its event loop is this one's. */
export function localEventLoop(): EventLoopProbe {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  return {
    start: async () => {
      histogram.enable();
    },
    stop: async () => {
      histogram.disable();
      return { p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6 };
    },
  };
}

/**
 * The victim's ping and send stayed under 200 ms at p99, and the event loop under 100 ms, while the attack ran.
 * Throws with every figure when one did not (the hostile benchmark imports this file outside the test runner).
 */
export function expectVictimUnhurt(figures: VictimFigures): void {
  const missed = [
    figures.ping.p99 >= VICTIM_P99_MS ? `ping p99 ${figures.ping.p99.toFixed(1)} ms` : '',
    figures.send.p99 >= VICTIM_P99_MS ? `send p99 ${figures.send.p99.toFixed(1)} ms` : '',
    figures.eventLoopP99Ms >= EVENT_LOOP_P99_MS ? `event-loop delay p99 ${figures.eventLoopP99Ms.toFixed(1)} ms` : '',
  ].filter(Boolean);
  if (missed.length > 0) {
    throw new Error(
      `the victim was hurt: ${missed.join(', ')} (targets ${VICTIM_P99_MS} / ${EVENT_LOOP_P99_MS} ms): ` +
        `${JSON.stringify(figures)}`,
    );
  }
}
