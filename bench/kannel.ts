import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SmscSimulator } from '../src/simulators/smscSimulator.js';
import { startKannel } from '../test/helpers/kannel.js';
import { watchCpu } from './lib.js';

/*
 * Kannel (Debian's bearerbox and smsbox) relaying the benchmarks' load, the peer Herald's figures are held against
 * (BENCH_ONLY=smpp-server, BENCH_ONLY=kannel-e2e).
 */

/** The simulator's receipt delay, as in every end-to-end run. */
export const DELAY_MS = 20;
/** Kannel's bind to its simulator. */
const KANNEL_BIND = { systemId: 'kannel', password: 'kannel-1' } as const;
/** Kannel's dlr-mask: the final report only (1 delivered, 2 undelivered), one dlr-url fetch a message. */
const FINAL_REPORTS = 3;

export interface KannelRun {
  readonly rate: number;
  /** bearerbox's and smsbox's CPU per message, in ms. */
  readonly cpuMs: number;
}

/** A Kannel run: its size, its sendsms clients, its window to the simulator, where bearerbox keeps its state. */
export interface KannelRunOptions {
  readonly messages: number;
  /**
   * sendsms requests in flight at once: one message a request, so many more than Herald's clients for Kannel not
   * to wait on round trips.
   */
  readonly kannelClients: number;
  /** submit_sm in flight of Kannel to its simulator, as Herald's own connector to the simulator has. */
  readonly window: number;
  readonly store: 'spool' | 'memory';
}

/**
 * Kannel relaying `messages` SMS to a simulator of its own (the same receipt delay as Herald's runs): `kannelClients`
 * sendsms requests at a time, each asking for its final report; from the first request to the last report at the
 * dlr-url.
 */
export async function kannelRun(options: KannelRunOptions): Promise<KannelRun> {
  const simulator = new SmscSimulator({ host: '127.0.0.1', ...KANNEL_BIND, delayMs: DELAY_MS });
  simulator.recordSubmissions(false);
  await simulator.start();
  const reports = await startReportCounter();
  const kannel = await startKannel({
    smsc: { host: '127.0.0.1', port: simulator.port, ...KANNEL_BIND },
    window: options.window,
    store: options.store,
  }).catch(async (error: unknown) => {
    await Promise.all([simulator.stop(), reports.stop()]);
    throw error;
  });
  try {
    const cpu = kannel.pids().map((pid) => watchCpu(pid));
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: options.kannelClients }, async () => {
        while (next < options.messages) {
          const n = next++;
          const answer = await kannel.sendsms({
            to: `+7916${String(n % 1_000_000).padStart(6, '0')}0`,
            from: 'Bench',
            text: `Your code is ${String(n % 10_000).padStart(4, '0')}`,
            dlrUrl: `${reports.url}?type=%d`,
            dlrMask: FINAL_REPORTS,
          });
          if (answer.status !== 202) throw new Error(`sendsms refused: ${answer.status} ${answer.body}`);
        }
      }),
    );
    const acceptedAt = performance.now();
    while (reports.count() < options.messages) {
      if (performance.now() - acceptedAt > 600_000)
        throw new Error(`Kannel: ${reports.count()} of ${options.messages} reports after 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - start) / 1000;
    const cpuSeconds = cpu.reduce((sum, c) => sum + c.stop().processSeconds, 0);
    return { rate: options.messages / seconds, cpuMs: (cpuSeconds * 1000) / options.messages };
  } finally {
    await kannel.stop();
    await Promise.all([simulator.stop(), reports.stop()]);
  }
}

/** A dlr-url that counts Kannel's final reports (type 1 or 2) and answers each at once. */
async function startReportCounter(): Promise<{ url: string; count(): number; stop(): Promise<void> }> {
  let count = 0;
  const server = createServer((request, response) => {
    const type = new URL(request.url ?? '', 'http://counter').searchParams.get('type');
    if (type === '1' || type === '2') count++;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dlr`,
    count: () => count,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
