import { CONFIG_VARIABLES } from '../src/config/config.js';
import { freePort } from '../test/ha/servers.js';
import { kannelInstalled } from '../test/helpers/kannel.js';
import { DELAY_MS, type KannelRun, kannelRun, type KannelRunOptions } from './kannel.js';
import {
  type AlternatingOptions,
  alternatingEndToEnd,
  type EndToEndOptions,
  type Intake,
  meanOf,
  runsOf,
} from './endToEnd.js';
import type { BenchFigure } from './lib.js';
import { runSmppClient } from './smpp.js';

/**
 * `messages` SMS a run, the same for every kind (BENCH_SMPP_SERVER_MESSAGES); `clients` of the HTTP runs (1000-message
 * POSTs each); `pairs` alternating rounds (BENCH_SMPP_SERVER_PAIRS): HTTP in, SMPP in, then Kannel, in each;
 * `kannelClients` (BENCH_SMPP_SERVER_KANNEL_CLIENTS) and `window` of the Kannel runs.
 */
export interface SmppServerBenchOptions extends AlternatingOptions, Omit<KannelRunOptions, 'messages' | 'store'> {}

/**
 * Whether this build of Herald has the SMPP server of DESIGN 22: its configuration knows HERALD_SMPP_PORT (and
 * refuses an unknown HERALD_* variable, so the run could not even start Herald with it otherwise).
 */
const heraldSmppServer = (): boolean => 'HERALD_SMPP_PORT' in CONFIG_VARIABLES;

/**
 * `BENCH_ONLY=smpp-server`: the same load of SMS, each delivered with a receipt by the SMSC simulator `DELAY_MS`
 * after its submit_sm, in three ways, in alternating runs on the same machine:
 * - HTTP in: bench/endToEnd.ts's run (1000-message POSTs to /api/v1/message, Herald one process of role all on
 *   PostgreSQL, SMPP out to the simulator), until every message is delivered;
 * - SMPP in: the same Herald, the same SMPP out, but the messages come as submit_sm from a client bound to Herald's
 *   SMPP server (bench/smppClient.ts, its bind the account's traffic token: key id and secret), until the client has
 *   every receipt back as deliver_sm;
 * - Kannel: bearerbox and smsbox (Debian's kannel) relaying to a simulator of their own through one transceiver bind,
 *   until the client has every receipt back on its dlr-url. Debian ships no opensmppbox (Kannel's SMPP server
 *   box; kannel-extras has test tools only), so the load comes in through smsbox's sendsms HTTP interface, one
 *   message a request, as Kannel's own clients send without it.
 * - HTTP in with callbacks: the same, each message's final status POSTed to a receiver, as an HTTP client gets
 *   what an SMPP client gets as receipts;
 * - SMPP in with a window of 1000 a bind (HERALD_SMPP_WINDOW): as many messages in flight as the HTTP runs' POSTs.
 * The targets: SMPP in (window 1000) at least HTTP in with callbacks, and SMPP in at the default window ahead of
 * Kannel.
 */
export async function benchSmppServer(options: SmppServerBenchOptions): Promise<BenchFigure[]> {
  const say = (line: string): void => void process.stdout.write(`  ${line}\n`);
  const smppIn = heraldSmppServer();
  // BENCH_SMPP_SERVER_KANNEL=0 leaves Kannel out: long rounds of Herald alone (Kannel takes minutes for 100,000).
  const kannelWanted = process.env.BENCH_SMPP_SERVER_KANNEL !== '0';
  const kannel = kannelWanted && kannelInstalled();
  if (!smppIn) say('SMPP in: not available: this build of Herald has no SMPP server (no HERALD_SMPP_PORT)');
  if (!kannelWanted) say('Kannel: left out (BENCH_SMPP_SERVER_KANNEL=0)');
  else if (!kannel) say('Kannel: not available: /usr/sbin/bearerbox and smsbox are missing (.ci/run installs kannel)');
  const kinds: Record<string, { label: string; run: Partial<EndToEndOptions> }> = {
    http: { label: 'HTTP in -> SMPP out', run: {} },
    // The HTTP client's receipts: a delivery callback a message to a receiver of the run's own.
    callbacks: { label: 'HTTP in -> SMPP out, callbacks back to the client', run: { callbacks: true } },
  };
  if (smppIn) {
    kinds.smpp = {
      label: `SMPP in -> SMPP out, window ${SMPP_IN_WINDOW}`,
      run: { intake: await smppIntake(options.clients, SMPP_IN_WINDOW) },
    };
  }
  if (wideWindow()) {
    kinds.wide = {
      label: `SMPP in -> SMPP out, window ${WIDE_WINDOW}`,
      run: { intake: await smppIntake(options.clients, WIDE_WINDOW) },
    };
  }
  const rates: Record<string, number[]> = { http: [], callbacks: [], smpp: [], wide: [] };
  const kannelRuns: KannelRun[] = [];
  let load = '';
  for (let pair = 0; pair < options.pairs; pair++) {
    // One round of the Herald kinds (HTTP in, then SMPP in), then Kannel.
    const round = await alternatingEndToEnd({ ...options, pairs: 1 }, kinds);
    for (const [kind, measured] of Object.entries(round.rates)) rates[kind]!.push(...measured);
    if (kannel) {
      const run = await kannelRun({ ...options, store: 'spool' });
      kannelRuns.push(run);
      say(`Kannel (sendsms in -> SMPP out): ${run.rate.toFixed(0)} msg/s, Kannel ${run.cpuMs.toFixed(3)} CPU ms/msg`);
    }
    load = round.load;
  }

  const http = meanOf(rates.http!);
  const called = meanOf(rates.callbacks!);
  const narrow = smppIn ? meanOf(rates.smpp!) : NaN;
  const wide = wideWindow() ? meanOf(rates.wide!) : NaN;
  // The target compares the same messages in flight: the HTTP run's clients' POSTs against as many binds' windows.
  const smpp = wideWindow() ? wide : narrow;
  const relayed = kannel ? meanOf(kannelRuns.map((r) => r.rate)) : NaN;
  const notAvailable = (why: string): Pick<BenchFigure, 'note'> => ({ note: `not available: ${why}` });
  const noServer = 'this build of Herald has no SMPP server (HERALD_SMPP_PORT)';
  const noKannel = kannelWanted
    ? 'kannel is not installed (.ci/run installs it)'
    : 'left out (BENCH_SMPP_SERVER_KANNEL=0)';
  const load1 = `${options.messages} SMS a run, receipts after ${DELAY_MS} ms`;
  return [
    {
      name: 'smpp server: HTTP in -> SMPP out',
      value: http,
      unit: 'msg/s',
      note:
        `${load1}, ${options.clients} clients, 1 process (all); runs ${runsOf(rates.http!)}; ${load}` +
        (options.warmUp
          ? `; every Herald run after a warm-up of ${options.warmUp * 1000} messages (Kannel's not)`
          : ''),
    },
    {
      name: 'smpp server: HTTP in -> SMPP out, callbacks back to the client',
      value: called,
      unit: 'msg/s',
      note: `the same, each message's final status POSTed to a receiver; runs ${runsOf(rates.callbacks!)}`,
    },
    {
      name: `smpp server: SMPP in -> SMPP out, window ${SMPP_IN_WINDOW}, receipts back to the client`,
      value: narrow,
      unit: 'msg/s',
      ...(smppIn
        ? {
            note:
              `${options.clients} transceiver binds (as many as the HTTP run's clients, the account's default ` +
              `limit), window ${SMPP_IN_WINDOW} each (the default); runs ${runsOf(rates.smpp!)}`,
          }
        : notAvailable(noServer)),
    },
    {
      name: `smpp server: SMPP in -> SMPP out, window ${WIDE_WINDOW}, receipts back to the client`,
      value: wide,
      unit: 'msg/s',
      ...(wideWindow()
        ? {
            note:
              `${options.clients} binds, window ${WIDE_WINDOW} each (HERALD_SMPP_WINDOW): as many messages in flight ` +
              `as the HTTP run's ${options.clients} clients' POSTs of 1000; runs ${runsOf(rates.wide!)}`,
          }
        : notAvailable('this build of Herald has no HERALD_SMPP_WINDOW')),
    },
    {
      name: 'smpp server: Kannel relaying, sendsms in -> SMPP out, receipts to the dlr-url',
      value: relayed,
      unit: 'msg/s',
      ...(kannel
        ? {
            note:
              `${options.kannelClients} sendsms clients, 1 transceiver bind, window ${options.window}, ` +
              `message store and DLR spool on disk; runs ${runsOf(kannelRuns.map((r) => r.rate))}; Kannel ` +
              `${meanOf(kannelRuns.map((r) => r.cpuMs)).toFixed(3)} CPU ms/msg (bearerbox and smsbox)`,
          }
        : notAvailable(noKannel)),
    },
    {
      name: 'smpp server: SMPP in / HTTP in, receipts / callbacks back to the client',
      value: smpp / called,
      unit: 'ratio',
      ...(smppIn
        ? {
            target: { op: '>=', value: 1 },
            note:
              `${options.pairs} alternating rounds; SMPP in with window ` +
              `${wideWindow() ? WIDE_WINDOW : SMPP_IN_WINDOW}` +
              ` (window ${SMPP_IN_WINDOW}: ${(narrow / called).toFixed(2)}); against HTTP in without callbacks ` +
              `${(smpp / http).toFixed(2)}`,
          }
        : notAvailable(`${noServer} (target: >= 1)`)),
    },
    {
      name: 'smpp server: SMPP in / Kannel relaying',
      value: narrow / relayed,
      unit: 'ratio',
      // Ahead of it: more than 1.
      ...(smppIn && kannel
        ? {
            target: { op: '>=', value: 1.01 },
            note: `SMPP in with the default window (${SMPP_IN_WINDOW}); the same load, the same simulator delay`,
          }
        : notAvailable(`${smppIn ? noKannel : noServer} (target: ahead of Kannel)`)),
    },
  ];
}

/**
 * submit_sm the SMPP client keeps in flight: the window of a bind to Herald's server (its default; more are
 * answered ESME_RTHROTTLED), against `window` on Herald's own connector to the simulator.
 */
const SMPP_IN_WINDOW = 100;

/** The window of the run with as many messages in flight as the HTTP run's POSTs (HERALD_SMPP_WINDOW). */
const WIDE_WINDOW = 1000;

/** Whether this build of Herald lets the operator set the window (older builds refuse the variable). */
const wideWindow = (): boolean => 'HERALD_SMPP_WINDOW' in CONFIG_VARIABLES;

/**
 * SMPP in: Herald listens for SMPP on a port of the run's own (a bind's window `window`); the client binds `binds`
 * transceivers with the
 * account's traffic token (system_id its key id, password its secret) and sends `messages` submit_sm as the HTTP
 * run's POSTs would (sender `Bench`, destinations ending 0: delivered), every one asking for its receipt, a throttled
 * one again 20 ms later. Without a rate limit (HERALD_SMPP_RATE_LIMIT, 2000 submit_sm a second by default): the HTTP
 * runs never meet theirs (a POST carries 1000 messages), and SMPP in would measure it alone.
 */
async function smppIntake(binds: number, window: number): Promise<Intake> {
  const port = await freePort();
  return {
    env: {
      HERALD_SMPP_PORT: String(port),
      HERALD_SMPP_RATE_LIMIT: '0',
      ...(window !== SMPP_IN_WINDOW ? { HERALD_SMPP_WINDOW: String(window) } : {}),
    },
    async send({ trafficToken, senderName, messages, first, warmingUp, started }) {
      // The token is base64("<key id>:<secret>").
      const [keyId = '', secret = ''] = Buffer.from(trafficToken, 'base64').toString().split(':');
      const result = await runSmppClient(
        {
          port,
          systemId: keyId,
          password: secret,
          sessions: binds,
          window: window * binds,
          messages,
          first,
          source: senderName,
        },
        started,
      );
      if (result.receipts !== messages || result.refused > 0)
        throw new Error(`SMPP in: ${result.refused} refused, ${result.receipts} of ${messages} receipts`);
      const door = `SMPP in${warmingUp ? ' (warm-up)' : ''}`;
      process.stdout.write(
        `  ${door}: every submit_sm answered after ${result.submitSeconds.toFixed(1)} s, ` +
          `the last receipt after ${result.seconds.toFixed(1)} s ` +
          `(${messages - result.receiptsAtSubmitted} receipts still to come at the last answer); the client's CPU ` +
          `${((result.cpuSeconds * 1000) / messages).toFixed(3)} ms/msg\n`,
      );
      if (result.throttled > 0)
        process.stdout.write(`  ${door}: ${result.throttled} submit_sm throttled, sent again\n`);
    },
  };
}
