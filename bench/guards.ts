import os from 'node:os';
import { Pool } from 'undici';
import { meanOf, runsOf } from './endToEnd.js';
import { benchIngest } from './ingest.js';
import { adminQuery, BENCH_ADMIN_TOKEN, type BenchFigure, type BenchSchema } from './lib.js';

/** What the guarded runs may switch on: the stop list, and each guard of the account's settings (geo with consent). */
export const GUARDS = ['stoplist', 'flood', 'pumping', 'spend', 'geo'] as const;
export type Guard = (typeof GUARDS)[number];

export interface GuardsOptions {
  readonly seconds: number;
  readonly clients: number;
  readonly pairs: number;
  /** Numbers on the operator's stop list in the guarded runs. */
  readonly stopListSize: number;
  /** The guards the guarded runs switch on (default every one): their cost one at a time. */
  readonly guards?: readonly Guard[];
  /** How many accounts the clients send for, one measurement each (default one, then one per client). */
  readonly accounts?: readonly number[];
  readonly withSchema: (run: (schema: BenchSchema) => Promise<BenchFigure[]>) => Promise<BenchFigure[]>;
}

/**
 * What the checks of DESIGN 20 cost at ingest: the same spread SMS batches posted with every guard off, then with a
 * stop list of `stopListSize` numbers (none of them sent to: a refusal would make the runs' work differ) and every
 * guard on (geo permissions enforced, the flooding filter, pumping detection, a daily spend limit, consent required
 * for PROMO), in alternating runs, each in a schema of its own. Twice: every client for one account (whose batches
 * take turns from the guard's lock to their commit, so that the checks' statements add up), then each client for an
 * account of its own (the checks' work alone). Target: the guarded rate at least 90 % of the other.
 */
export async function benchGuards(options: GuardsOptions): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const guards = new Set(options.guards ?? GUARDS);
  const stopList = guards.has('stoplist') ? options.stopListSize : 0;
  const which = guards.size === GUARDS.length ? 'every guard' : [...guards].join('+');
  for (const accounts of options.accounts ?? [1, options.clients]) {
    const rates = { off: [] as number[], on: [] as number[] };
    const loadStart = os.loadavg()[0]!;
    for (let pair = 0; pair < options.pairs; pair++) {
      for (const kind of ['off', 'on'] as const) {
        const measured = await options.withSchema((schema) =>
          benchIngest({
            schema,
            seconds: options.seconds,
            clients: options.clients,
            accounts,
            apiProcesses: 1,
            batch: 1000,
            spread: true,
            bare: false,
            ...(kind === 'on' ? { stopList, env: { HERALD_PUMPING_MODE: 'hold' } } : {}),
            prepare: async (account) => {
              await (kind === 'on' ? guardsOn(account, guards) : guardsOff(account));
              // A checkpoint before the clients start: the stop list's million rows (and the run before's writes)
              // are not flushed during the measured seconds, which made a guarded run faster than its unguarded
              // twin (42,318 against 32,827 msg/s with the stop list alone).
              await adminQuery('CHECKPOINT');
            },
          }),
        );
        rates[kind].push(measured[0]!.value);
        process.stdout.write(`  ${accounts} account(s), guards ${kind}: ${measured[0]!.value.toFixed(0)} msg/s\n`);
      }
    }
    const load = `1-min load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
    const off = meanOf(rates.off);
    const on = meanOf(rates.on);
    const runs = `${options.pairs} alternating pair(s), ${options.seconds} s each, ${options.clients} clients`;
    const who = accounts === 1 ? 'one account' : `${accounts} accounts`;
    figures.push(
      {
        name: `guards: ingest, ${who}, every guard off`,
        value: off,
        unit: 'msg/s',
        note: `${runsOf(rates.off)}; ${load}`,
      },
      {
        name: `guards: ingest, ${who}, ${which} on`,
        value: on,
        unit: 'msg/s',
        note: `${runsOf(rates.on)}; stop list of ${stopList.toLocaleString('en')} numbers; ${runs}`,
      },
      { name: `guards: ${who}, on / off`, value: (on / off) * 100, unit: '%', target: { op: '>=', value: 90 } },
    );
  }
  return figures;
}

async function adminCall(url: string, method: 'POST' | 'PATCH', path: string, body: unknown): Promise<void> {
  const http = new Pool(url);
  try {
    const reply = await http.request({
      method,
      path,
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await reply.body.text();
    if (reply.statusCode >= 300) throw new Error(`guards: ${method} ${path} refused: ${reply.statusCode} ${text}`);
  } finally {
    await http.close();
  }
}

/**
 * A price and the money to pay it, in both runs: a real account is charged, and its batches queue on its balance
 * (reserveCharges) whether the guard's lock is taken or not.
 */
async function charged(account: { readonly id: number; readonly url: string }): Promise<void> {
  await adminCall(account.url, 'POST', '/admin/v1/tariffs', {
    accountId: account.id,
    channelType: 'SMS',
    price: 0.01,
    currency: 'RUB',
  });
  await adminCall(account.url, 'POST', `/admin/v1/accounts/${account.id}/balance`, {
    currency: 'RUB',
    amount: 1_000_000,
  });
}

/** Every guard off: what the operator can switch off. */
async function guardsOff(account: { readonly id: number; readonly url: string }): Promise<void> {
  await charged(account);
  await adminCall(account.url, 'PATCH', `/admin/v1/accounts/${account.id}`, {
    geoPermissions: null,
    flood: null,
    dailySpendLimit: null,
    consentRequired: [],
    pumping: { mode: 'off', rangeFloor: 100, countryFloor: 300, factor: 10 },
  });
}

/** The `guards` of the account's settings on, the others off (the stop list is filled by benchIngest). */
async function guardsOn(
  account: { readonly id: number; readonly url: string },
  guards: ReadonlySet<Guard>,
): Promise<void> {
  await charged(account);
  await adminCall(account.url, 'PATCH', `/admin/v1/accounts/${account.id}`, {
    geoPermissions: guards.has('geo') ? { allow: ['RU'], mode: 'enforce' } : null,
    flood: guards.has('flood') ? { identical: 6, any: 20 } : null,
    dailySpendLimit: guards.has('spend') ? { RUB: 1_000_000_000 } : null,
    consentRequired: guards.has('geo') ? ['PROMO'] : [],
    pumping: { mode: guards.has('pumping') ? 'hold' : 'off', rangeFloor: 100, countryFloor: 300, factor: 10 },
  });
}
