import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// Each benchmark's module is loaded only when it runs (`await import` in its block): main's bench/ copied into an older
// tree then runs the benchmarks that tree's code supports (issue 35's comparisons, docs/scaling.md).
import type { PlainRate } from './cascade.js';
import type { Guard } from './guards.js';
import {
  type BenchFigure,
  type BenchSchema,
  createBenchSchema,
  machineDescription,
  meetsTarget,
  postgresVersion,
  renderTable,
  RESULTS_FILE,
} from './lib.js';

/**
 * `npm run bench`: every benchmark in one run against a real PostgreSQL, a table at the end, the same figures in
 * bench/results/latest.json. Knobs: BENCH_SECONDS, BENCH_CLIENTS, BENCH_API_PROCS, BENCH_E2E_MESSAGES,
 * BENCH_E2E_WARMUP (e2e, e2e-callbacks, smpp-server's and roles' Herald runs: batches of 1000 sent and delivered
 * before a run is timed), BENCH_ONLY
 * (ingest,guards,routing,e2e,pgbouncer,callbacks,e2e-callbacks,soak,statistics,list,hostile,cascade,priority,smpp,
 * smpp-server,kannel-e2e,dispatch,verify,idle,roles,claim-planning,claim-backlog,telegram,providers; mnp, wal-models
 * and bursts only when named), BENCH_BURSTS_MESSAGES, BENCH_BURSTS, BENCH_BURSTS_GAP_SECONDS, BENCH_BURSTS_PAIRS,
 * BENCH_CLAIM_PLANNING_WEEKS (e.g. `0,12,52`), BENCH_CLAIM_BACKLOG, BENCH_ROUTES, BENCH_ROUTING_PAIRS,
 * BENCH_WAL_MODELS_MESSAGES, BENCH_WAL_MODELS_ROUNDS,
 * BENCH_MNP_ROWS, BENCH_SOAK_MESSAGES, BENCH_TELEGRAM_MESSAGES, BENCH_TELEGRAM_PAIRS, BENCH_PROVIDERS_MESSAGES,
 * BENCH_PROVIDERS_PAIRS, BENCH_GUARDS_PAIRS, BENCH_STOP_LIST (the guarded runs' stop list), BENCH_GUARDS_ON (the guards
 * the guarded runs switch on, e.g. `flood` or `stoplist,pumping`; default all), BENCH_GUARDS_ACCOUNTS (e.g. `1` or
 * `1,4`: accounts per measurement; default one, then one per client),
 * BENCH_STATS_MESSAGES, BENCH_LIST_MESSAGES, BENCH_CASCADES,
 * BENCH_PRIORITY_PROMOS, BENCH_PRIORITY_SECONDS, BENCH_SMPP_MESSAGES, BENCH_SMPP_BARE_MESSAGES,
 * BENCH_SMPP_MAX_SECONDS, BENCH_SMPP_SERVER_MESSAGES, BENCH_SMPP_SERVER_PAIRS, BENCH_SMPP_SERVER_KANNEL_CLIENTS,
 * BENCH_SMPP_SERVER_KANNEL (=0: Kannel left out),
 * BENCH_E2E_BREAKDOWN=1 (every end-to-end run, e2e and e2e-callbacks, smpp-server, kannel-e2e, providers, telegram:
 * the run's WAL and server time by statement and relation, bench/walBreakdown.ts, from a server that preloads
 * pg_stat_statements),
 * BENCH_KANNEL_E2E_MESSAGES, BENCH_KANNEL_E2E_PAIRS,
 * BENCH_DISPATCH_MESSAGES,
 * BENCH_DISPATCH_PER_MINUTE, BENCH_DISPATCH_SLICE_SECONDS,
 * BENCH_VERIFY_COUNT, BENCH_IDLE_SECONDS, BENCH_IDLE_SETTLE_SECONDS, BENCH_ROLES_MESSAGES, BENCH_ROLES_API,
 * BENCH_ROLES_WORKERS, BENCH_ROLES_BREAKDOWN (=1: where the WAL went, bench/walBreakdown.ts, and the server's CPU by
 * process), BENCH_ROLES_AGAINST
 * (a commit: roles in this tree and in that one, built in a worktree, alternating; bench/rolesAgainst.ts),
 * BENCH_ROLES_PAIRS (its pairs, default 3), BENCH_ROLES_RECEIPT_MS (an SMS's receipt this long after its submission,
 * default 20; bench/roles.ts), BENCH_DATABASE_URL;
 * BENCH_NODE_FLAGS and BENCH_NODE_ENV replace bin/herald.js's node flags and environment for the Herald processes
 * started.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 4);
const apiProcesses = Number(process.env.BENCH_API_PROCS ?? 1);
const e2eMessages = Number(process.env.BENCH_E2E_MESSAGES ?? 100_000);
/** 1000-message batches through each run of e2e, e2e-callbacks, smpp-server and roles before it is timed (warmUp). */
const warmUp = Number(process.env.BENCH_E2E_WARMUP ?? 0);
if (!Number.isInteger(warmUp) || warmUp < 0) throw new Error('BENCH_E2E_WARMUP: a whole number of batches, 0 or more');
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string): boolean => !only || only.includes(name);
/** BENCH_GUARDS_ON's guards; undefined: all. */
function guardsOf(list: string | undefined, known: readonly Guard[]): Guard[] | undefined {
  if (list === undefined) return undefined;
  const guards = list.split(',');
  const unknown = guards.filter((g) => !(known as readonly string[]).includes(g));
  if (unknown.length > 0)
    throw new Error(`BENCH_GUARDS_ON: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return guards as Guard[];
}

const machine = machineDescription();
const database = await postgresVersion();
process.stdout.write(`Herald benchmarks on ${machine}; ${database}\n\n`);

const figures: BenchFigure[] = [];
/** Runs a benchmark on a fresh schema, dropped afterwards. */
async function withSchema(run: (schema: BenchSchema) => Promise<BenchFigure[]>): Promise<BenchFigure[]> {
  const schema = await createBenchSchema();
  try {
    return await run(schema);
  } finally {
    // BENCH_KEEP_SCHEMA=true leaves the run's schema for inspection.
    if (process.env.BENCH_KEEP_SCHEMA === 'true') process.stdout.write(`  kept schema ${schema.name}\n`);
    else await schema.drop();
  }
}
/** The same, its figures added to the table. */
async function inSchema(run: (schema: BenchSchema) => Promise<BenchFigure[]>): Promise<BenchFigure[]> {
  const measured = await withSchema(run);
  figures.push(...measured);
  return measured;
}
if (wanted('ingest')) {
  const { benchIngest } = await import('./ingest.js');
  process.stdout.write(`ingest: ${clients} clients for ${seconds} s...\n`);
  await inSchema((schema) => benchIngest({ schema, seconds, clients, apiProcesses, batch: 1000 }));
}
// The guards' cost at ingest (DESIGN 20) is part of `ingest`, and runs alone as `guards`.
if (wanted('ingest') || wanted('guards')) {
  const { benchGuards, GUARDS } = await import('./guards.js');
  const pairs = Number(process.env.BENCH_GUARDS_PAIRS ?? 2);
  const stopListSize = Number(process.env.BENCH_STOP_LIST ?? 1_000_000);
  const guards = guardsOf(process.env.BENCH_GUARDS_ON, GUARDS);
  const accounts = process.env.BENCH_GUARDS_ACCOUNTS?.split(',').map(Number);
  process.stdout.write(
    `guards: ingest with every guard off, then on (${guards?.join('+') ?? 'all'}) with a stop list of ` +
      `${stopListSize} numbers, ${pairs} pair(s)...\n`,
  );
  figures.push(
    ...(await benchGuards({
      seconds,
      clients,
      pairs,
      stopListSize,
      withSchema,
      ...(guards ? { guards } : {}),
      ...(accounts ? { accounts } : {}),
    })),
  );
}
if (wanted('routing')) {
  const { benchRouting } = await import('./routing.js');
  const pairs = Number(process.env.BENCH_ROUTING_PAIRS ?? 2);
  const routes = Number(process.env.BENCH_ROUTES ?? 10_000);
  process.stdout.write(`routing: end to end with one route, then with ${routes} routes, ${pairs} pair(s)...\n`);
  figures.push(...(await benchRouting({ messages: e2eMessages, clients, pairs, routes, withSchema })));
}
// The plain end-to-end rate of this run: what the cascades are compared with.
let plain: PlainRate | undefined;
function plainRate(measured: readonly BenchFigure[], messages: number): PlainRate {
  return {
    msgPerSecond: measured[0]!.value,
    messages: Math.ceil(messages / 1000) * 1000,
    cpuMsPerMessage: measured.find((f) => f.name === 'end to end: Herald CPU per message')?.value ?? NaN,
  };
}
if (wanted('e2e')) {
  const { benchEndToEnd } = await import('./endToEnd.js');
  process.stdout.write(`end to end: ${e2eMessages} SMS through SMPP...\n`);
  const split = process.env.BENCH_E2E_SPLIT === 'true';
  const measured = await inSchema((schema) =>
    benchEndToEnd({ schema, messages: e2eMessages, clients, delayMs: 20, split, callbacks: false, warmUp }),
  );
  // The cascade benchmark's baseline is a fresh process's run, as its own runs are.
  if (!split && warmUp === 0) plain = plainRate(measured, e2eMessages);
}
if (wanted('pgbouncer')) {
  const { benchPgBouncer } = await import('./pgbouncer.js');
  process.stdout.write(`pgbouncer: ${e2eMessages} SMS end to end straight on PostgreSQL, then through PgBouncer...\n`);
  // Each run in a schema of its own; the figures (the two rates and their ratio) are added once, here.
  figures.push(...(await benchPgBouncer({ messages: e2eMessages, clients, withSchema })));
}
if (wanted('telegram')) {
  const { benchTelegram } = await import('./telegram.js');
  const messages = Number(process.env.BENCH_TELEGRAM_MESSAGES ?? 50_000);
  const pairs = Number(process.env.BENCH_TELEGRAM_PAIRS ?? 2);
  process.stdout.write(`telegram: ${messages} TELEGRAM texts against ${messages} SMS, ${pairs} alternating pairs...\n`);
  figures.push(...(await benchTelegram({ messages, clients, pairs, withSchema })));
}
if (wanted('providers')) {
  const { benchProviders } = await import('./providers.js');
  const messages = Number(process.env.BENCH_PROVIDERS_MESSAGES ?? 50_000);
  const pairs = Number(process.env.BENCH_PROVIDERS_PAIRS ?? 2);
  process.stdout.write(
    `providers: ${messages} VK texts through the built-in vk connector against as many through the declarative ` +
      `herald-vk, ${pairs} alternating pairs...\n`,
  );
  figures.push(...(await benchProviders({ messages, clients, pairs, withSchema })));
}
if (wanted('callbacks')) {
  const { benchCallbacks } = await import('./callbacks.js');
  process.stdout.write('callbacks: 200,000 events to a local receiver...\n');
  await inSchema((schema) => benchCallbacks({ schema, events: 200_000, targets: 20 }));
}
if (wanted('e2e-callbacks')) {
  const { benchEndToEnd } = await import('./endToEnd.js');
  process.stdout.write(`end to end with callbacks: ${e2eMessages} SMS, each with its delivered callback...\n`);
  const split = process.env.BENCH_E2E_SPLIT === 'true';
  await inSchema((schema) =>
    benchEndToEnd({ schema, messages: e2eMessages, clients, delayMs: 20, split, callbacks: true, warmUp }),
  );
}
if (wanted('soak')) {
  const { benchEndToEnd } = await import('./endToEnd.js');
  const messages = Number(process.env.BENCH_SOAK_MESSAGES ?? 1_000_000);
  process.stdout.write(`soak: ${messages} SMS end to end with callbacks, sampling Herald's memory...\n`);
  await inSchema((schema) =>
    benchEndToEnd({ schema, messages, clients, delayMs: 20, split: false, callbacks: true, soak: true }),
  );
}
if (wanted('statistics')) {
  const { benchStatistics } = await import('./statistics.js');
  const messages = Number(process.env.BENCH_STATS_MESSAGES ?? 1_000_000);
  process.stdout.write(`statistics: ${messages} messages over 30 days...\n`);
  await inSchema((schema) => benchStatistics({ schema, messages, days: 30 }));
}
if (wanted('list')) {
  const { benchList } = await import('./list.js');
  const messages = Number(process.env.BENCH_LIST_MESSAGES ?? 1_000_000);
  process.stdout.write(`message list: ${messages} messages over 30 days, a page of 100 with its total...\n`);
  await inSchema((schema) => benchList({ schema, messages }));
}
if (wanted('hostile')) {
  const { benchHostile } = await import('./hostile.js');
  process.stdout.write('hostile: every attack of test/hostile while a victim account works...\n');
  await inSchema((schema) => benchHostile({ schema, rounds: Number(process.env.BENCH_HOSTILE_ROUNDS ?? 5) }));
}
if (wanted('cascade')) {
  const { benchCascade } = await import('./cascade.js');
  const { benchEndToEnd } = await import('./endToEnd.js');
  const cascades = Number(process.env.BENCH_CASCADES ?? 100_000);
  if (!plain) {
    // The same size and the same machine state as the cascades: the figure they are held against.
    process.stdout.write(`cascades: first the plain end to end of ${cascades} SMS, for comparison...\n`);
    const measured = await inSchema((schema) =>
      benchEndToEnd({ schema, messages: cascades, clients, delayMs: 20, split: false, callbacks: false }),
    );
    plain = plainRate(measured, cascades);
  }
  const against = plain;
  process.stdout.write(`cascades: ${cascades} VK -> VIBER -> SMS cascades, a third ending at each step...\n`);
  await inSchema((schema) => benchCascade({ schema, cascades, clients, delayMs: 20, plain: against }));
}
if (wanted('dispatch')) {
  const { benchDispatch } = await import('./dispatch.js');
  // 200,000 takes a few minutes on 2 cores (the 1,000,000: BENCH_DISPATCH_MESSAGES=1000000).
  const messages = Number(process.env.BENCH_DISPATCH_MESSAGES ?? 200_000);
  const perMinute = Number(process.env.BENCH_DISPATCH_PER_MINUTE ?? 600);
  const sliceSeconds = Number(process.env.BENCH_DISPATCH_SLICE_SECONDS ?? 120);
  process.stdout.write(
    `dispatch: ${messages} added (1000 a call, 3 substitutions) against as many plain, then ${perMinute}/minute ` +
      `over ${sliceSeconds} s...\n`,
  );
  // Each phase makes its own schema (the plain ingest and the dispatch must not share a table's growth).
  figures.push(...(await benchDispatch({ messages, clients, perMinute, sliceSeconds })));
}
if (wanted('smpp')) {
  const { benchSmpp } = await import('./smpp.js');
  const messages = Number(process.env.BENCH_SMPP_MESSAGES ?? 50_000);
  const bareMessages = Number(process.env.BENCH_SMPP_BARE_MESSAGES ?? 100_000);
  const maxSeconds = Number(process.env.BENCH_SMPP_MAX_SECONDS ?? 120);
  process.stdout.write(
    `smpp: bare client (${bareMessages} SMS) and Herald (${messages}) over 1 and 2 binds, Herald 20 % throttled...\n`,
  );
  figures.push(
    ...(await benchSmpp({
      messages,
      bareMessages,
      clients,
      delayMs: 20,
      window: 1000,
      maxSeconds,
      throttledShare: 0.2,
    })),
  );
}

if (wanted('smpp-server')) {
  const { benchSmppServer } = await import('./smppServer.js');
  const messages = Number(process.env.BENCH_SMPP_SERVER_MESSAGES ?? 20_000);
  const pairs = Number(process.env.BENCH_SMPP_SERVER_PAIRS ?? 2);
  process.stdout.write(
    `smpp-server: ${messages} SMS HTTP in -> SMPP out, SMPP in -> SMPP out and through Kannel, ${pairs} ` +
      'alternating rounds...\n',
  );
  const kannelClients = Number(process.env.BENCH_SMPP_SERVER_KANNEL_CLIENTS ?? 32);
  figures.push(
    ...(await benchSmppServer({ messages, clients, kannelClients, pairs, window: 1000, withSchema, warmUp })),
  );
}

if (wanted('kannel-e2e')) {
  const { benchKannelEndToEnd } = await import('./kannelEndToEnd.js');
  const messages = Number(process.env.BENCH_KANNEL_E2E_MESSAGES ?? 20_000);
  const pairs = Number(process.env.BENCH_KANNEL_E2E_PAIRS ?? 2);
  process.stdout.write(
    `kannel-e2e: ${messages} SMS end to end with a final report each, Herald with callbacks against Kannel in ` +
      `memory, ${pairs} alternating rounds...\n`,
  );
  const kannelClients = Number(process.env.BENCH_SMPP_SERVER_KANNEL_CLIENTS ?? 32);
  figures.push(...(await benchKannelEndToEnd({ messages, clients, kannelClients, pairs, window: 1000, withSchema })));
}

if (wanted('priority')) {
  const { benchPriority } = await import('./priority.js');
  const promos = Number(process.env.BENCH_PRIORITY_PROMOS ?? 1_000_000);
  const codeSeconds = Number(process.env.BENCH_PRIORITY_SECONDS ?? 20);
  process.stdout.write(`priority: AUTHORIZE codes idle, then behind ${promos} PROMO messages of a dispatch...\n`);
  const split = process.env.BENCH_PRIORITY_SPLIT === 'true';
  await inSchema((schema) => benchPriority({ schema, promos, seconds: codeSeconds, clients, split }));
}

if (wanted('verify')) {
  const { benchVerify } = await import('./verify.js');
  const count = Number(process.env.BENCH_VERIFY_COUNT ?? 20_000);
  process.stdout.write(
    `verify: ${count} verifications (send, then check) against ${count} plain one-message sends...\n`,
  );
  await inSchema((schema) => benchVerify({ schema, count, clients }));
}

if (wanted('idle')) {
  const { benchIdle } = await import('./idle.js');
  const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
  // Measured from a minute after start-up: some 30-50 s after a process's last burst of work V8 collects its whole
  // heap once to shrink it (0.4 s of CPU), a cost of start-up, not of idling (docs/delivery.md).
  const settleSeconds = Number(process.env.BENCH_IDLE_SETTLE_SECONDS ?? 60);
  process.stdout.write(
    `idle: Herald on PostgreSQL, then embedded, ${idleSeconds} s each with no traffic, from ${settleSeconds} s ` +
      'after start...\n',
  );
  figures.push(...(await benchIdle({ seconds: idleSeconds, settleSeconds })));
}

if (wanted('roles')) {
  const { benchRoles } = await import('./roles.js');
  const messages = Number(process.env.BENCH_ROLES_MESSAGES ?? e2eMessages);
  const api = Number(process.env.BENCH_ROLES_API ?? 1);
  const workers = Number(process.env.BENCH_ROLES_WORKERS ?? 1);
  process.stdout.write(
    `roles: ${messages} SMS end to end through ${api} api and ${workers} worker processes on a PostgreSQL of its ` +
      'own, without then with callbacks; CPU per message of each role and of PostgreSQL...\n',
  );
  const against = process.env.BENCH_ROLES_AGAINST;
  if (against) {
    // Each run is a `roles` of its own tree, with this process's knobs (it inherits the environment).
    const { benchRolesAgainst } = await import('./rolesAgainst.js');
    const pairs = Number(process.env.BENCH_ROLES_PAIRS ?? 3);
    if (!Number.isInteger(pairs) || pairs < 1) throw new Error('BENCH_ROLES_PAIRS: a whole number, at least 1');
    process.stdout.write(`roles: this tree against ${against}, ${pairs} alternating pairs...\n`);
    figures.push(...(await benchRolesAgainst({ commit: against, pairs })));
  } else {
    // Its own server (a throwaway cluster), not a schema of the shared one: PostgreSQL's CPU and WAL are the run's.
    const breakdown = process.env.BENCH_ROLES_BREAKDOWN === '1';
    const receiptDelayMs = Number(process.env.BENCH_ROLES_RECEIPT_MS ?? 20);
    if (!Number.isInteger(receiptDelayMs) || receiptDelayMs < 0) {
      throw new Error('BENCH_ROLES_RECEIPT_MS: a whole number of milliseconds');
    }
    figures.push(
      ...(await benchRoles({
        messages,
        clients,
        apiProcesses: api,
        workerProcesses: workers,
        breakdown,
        warmUp,
        receiptDelayMs,
      })),
    );
  }
}

if (wanted('claim-planning')) {
  const { benchClaimPlanning } = await import('./claimPlanning.js');
  const weeks = (process.env.BENCH_CLAIM_PLANNING_WEEKS ?? '0,4,12,26,52').split(',').map(Number);
  process.stdout.write(
    `claim-planning: the claim's planning as weeks of messages are kept (${weeks.join(', ')}), without and with ` +
      'the queue floor...\n',
  );
  figures.push(...(await benchClaimPlanning({ weeks, times: 51 })));
}

if (wanted('claim-backlog')) {
  const { benchClaimBacklog } = await import('./claimBacklog.js');
  const backlog = Number(process.env.BENCH_CLAIM_BACKLOG ?? 200_000);
  process.stdout.write(`claim-backlog: the claim over ${backlog} due messages, with and without JIT...\n`);
  figures.push(...(await benchClaimBacklog({ backlog, rounds: 10 })));
}

// Not in a run of everything: a measurement of layouts not built (issue 35), for docs/scaling.md.
if (only?.includes('wal-models')) {
  const { benchWalModels } = await import('./walModels.js');
  const messages = Number(process.env.BENCH_WAL_MODELS_MESSAGES ?? 20_000);
  const rounds = Number(process.env.BENCH_WAL_MODELS_ROUNDS ?? 2);
  process.stdout.write(
    `wal-models: a message's insert, claim, sent and final status in plain SQL, ${messages} messages, under ` +
      `other layouts of the messages table, ${rounds} rounds...\n`,
  );
  figures.push(...(await benchWalModels({ messages, rounds })));
}

// Not in a run of everything: a run is mostly its quiet gaps.
if (only?.includes('bursts')) {
  const { benchBursts, DRIVER_IDLE_SECONDS } = await import('./bursts.js');
  const messages = Number(process.env.BENCH_BURSTS_MESSAGES ?? 12_000);
  const bursts = Number(process.env.BENCH_BURSTS ?? 4);
  const gapSeconds = Number(process.env.BENCH_BURSTS_GAP_SECONDS ?? 20);
  const pairs = Number(process.env.BENCH_BURSTS_PAIRS ?? 2);
  process.stdout.write(
    `bursts: ${messages} SMS in ${bursts} bursts ${gapSeconds} s apart, a pool closing idle connections after ` +
      `${DRIVER_IDLE_SECONDS} s against Herald's, ${pairs} alternating pairs...\n`,
  );
  figures.push(...(await benchBursts({ messages, clients, pairs, bursts, gapSeconds, withSchema })));
}
// Not in a run of everything: an import of millions of rows is minutes of the machine's disk and WAL.
if (only?.includes('mnp')) {
  const { benchMnp } = await import('./mnp.js');
  const rows = Number(process.env.BENCH_MNP_ROWS ?? 5_000_000);
  process.stdout.write(`mnp: an import of a generated number portability file of ${rows} rows...\n`);
  await inSchema((schema) => benchMnp({ schema, rows }));
}

process.stdout.write(`\n${renderTable(figures)}\n`);
mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
const result = {
  time: new Date().toISOString(),
  machine,
  database,
  figures: figures.map((f) => ({ ...f, met: meetsTarget(f) })),
};
writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`\nwritten to ${RESULTS_FILE}\n`);
