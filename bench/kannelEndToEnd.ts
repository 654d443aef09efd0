import { kannelInstalled } from '../test/helpers/kannel.js';
import { type AlternatingOptions, alternatingEndToEnd, meanOf, runsOf } from './endToEnd.js';
import { DELAY_MS, type KannelRun, kannelRun, type KannelRunOptions } from './kannel.js';
import type { BenchFigure } from './lib.js';

/** The end-to-end comparison's options: Herald's runs and Kannel's, alternating (`pairs` rounds of both). */
export interface KannelEndToEndOptions extends AlternatingOptions, Omit<KannelRunOptions, 'messages' | 'store'> {}

/**
 * `BENCH_ONLY=kannel-e2e` (issue 35): end to end with a final report per message, Herald against Kannel 1.4.5 at its
 * fastest, in alternating runs on the same machine:
 * - Herald: 1000-message POSTs to /api/v1/message from `clients` clients, SMPP out to the simulator (receipts after
 *   DELAY_MS), each message's delivered callback POSTed to a local receiver; durable at every step;
 * - Kannel: bearerbox with no message store and its receipts' lookup in memory (`dlr-storage = internal`: a crash
 *   loses both), smsbox's sendsms one message a request from `kannelClients` clients, one transceiver bind of the
 *   same window to a simulator of the same delay, each final report fetched from a local dlr-url.
 * Target: Herald at least 4x Kannel's rate.
 */
export async function benchKannelEndToEnd(options: KannelEndToEndOptions): Promise<BenchFigure[]> {
  const say = (line: string): void => void process.stdout.write(`  ${line}\n`);
  const noKannel = 'kannel is not installed (.ci/run installs it)';
  if (!kannelInstalled()) say(`Kannel: not available: ${noKannel}`);
  const herald: number[] = [];
  const cpu: number[] = [];
  const kannel: KannelRun[] = [];
  let load = '';
  for (let pair = 0; pair < options.pairs; pair++) {
    const round = await alternatingEndToEnd(
      { ...options, pairs: 1 },
      { herald: { label: 'Herald, HTTP in, callbacks back', run: { callbacks: true } } },
    );
    herald.push(...round.rates.herald);
    cpu.push(...round.cpu.herald);
    load = round.load;
    if (kannelInstalled()) {
      const run = await kannelRun({ ...options, store: 'memory' });
      kannel.push(run);
      say(
        `Kannel in memory, sendsms in, reports back: ${run.rate.toFixed(0)} msg/s, ${run.cpuMs.toFixed(3)} CPU ms/msg`,
      );
    }
  }
  const heraldRate = meanOf(herald);
  const kannelRate = kannel.length > 0 ? meanOf(kannel.map((r) => r.rate)) : NaN;
  return [
    {
      name: 'kannel e2e: Herald, accepted -> callback',
      value: heraldRate,
      unit: 'msg/s',
      note:
        `${options.messages} SMS a run, ${options.clients} clients of 1000-message POSTs, receipts after ` +
        `${DELAY_MS} ms, 1 process (all), PostgreSQL; runs ${runsOf(herald)}; Herald ` +
        `${meanOf(cpu).toFixed(3)} CPU ms/msg; ${load}`,
    },
    {
      name: 'kannel e2e: Kannel in memory, sendsms -> dlr-url',
      value: kannelRate,
      unit: 'msg/s',
      note:
        kannel.length > 0
          ? `${options.kannelClients} sendsms clients, 1 transceiver bind, window ${options.window}, no message ` +
            `store, dlr-storage internal; runs ${runsOf(kannel.map((r) => r.rate))}; Kannel ` +
            `${meanOf(kannel.map((r) => r.cpuMs)).toFixed(3)} CPU ms/msg (bearerbox and smsbox)`
          : `not available: ${noKannel}`,
    },
    {
      name: 'kannel e2e: Herald / Kannel in memory',
      value: heraldRate / kannelRate,
      unit: 'ratio',
      ...(kannel.length > 0
        ? { target: { op: '>=', value: 4 }, note: `${options.pairs} alternating rounds` }
        : { note: `not available: ${noKannel} (target: >= 4)` }),
    },
  ];
}
