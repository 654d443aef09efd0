import os from 'node:os';
import type pg from 'pg';
import { Pool } from 'undici';
import { SIM_CONNECTOR_IDS } from '../src/simulators/embeddedSimulators.js';
import { benchEndToEnd, meanOf, runsOf } from './endToEnd.js';
import { BENCH_ADMIN_TOKEN, type BenchFigure, type BenchSchema } from './lib.js';

export interface RoutingOptions {
  readonly messages: number;
  readonly clients: number;
  readonly pairs: number;
  /** Routes in the big table. */
  readonly routes: number;
  readonly withSchema: (run: (schema: BenchSchema) => Promise<BenchFigure[]>) => Promise<BenchFigure[]>;
}

/** Numbers in the portability base of the big table's runs. */
const PORTED = 1_000_000;

/** The SMPP simulator's connector: every route of the big table names it (bench/endToEnd.ts keeps SMS on it). */
const CONNECTOR = SIM_CONNECTOR_IDS.SMS;

/**
 * What a big route table costs end to end (DESIGN 21): the same SMS with their delivered callbacks, alternating,
 * once with the one route HERALD_CONFIG seeds and once with `routes` routes beside it: prefix routes of 7 digits
 * (7916000 to 7916999 take the run's messages: the lookup goes down every prefix of each number) and as many
 * account routes with operators, each with a buy price, so that each message is matched against the table and
 * its buy price written), and a portability base of 1,000,000 numbers that each batch's numbers are looked up in.
 * Target: the big table's rate at least 95 % of the one route's.
 */
export async function benchRouting(options: RoutingOptions): Promise<BenchFigure[]> {
  const rates = { one: [] as number[], many: [] as number[] };
  const loadStart = os.loadavg()[0]!;
  for (let pair = 0; pair < options.pairs; pair++) {
    for (const kind of ['one', 'many'] as const) {
      const measured = await options.withSchema((schema) =>
        benchEndToEnd({
          schema,
          messages: options.messages,
          clients: options.clients,
          delayMs: 20,
          split: false,
          callbacks: true,
          ...(kind === 'many' ? { prepare: (db: pg.Pool, url: string) => bigTable(db, url, options.routes) } : {}),
        }),
      );
      rates[kind].push(measured[0]!.value);
      process.stdout.write(
        `  ${kind === 'one' ? 'one route' : `${options.routes} routes`}: ${measured[0]!.value.toFixed(0)} msg/s\n`,
      );
    }
  }
  const load = `1-min load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  const one = meanOf(rates.one);
  const many = meanOf(rates.many);
  return [
    { name: 'routing: end to end, one route', value: one, unit: 'msg/s', note: `${runsOf(rates.one)}; ${load}` },
    {
      name: `routing: end to end, ${options.routes.toLocaleString('en')} routes, ${PORTED.toLocaleString('en')} ported`,
      value: many,
      unit: 'msg/s',
      note: `${runsOf(rates.many)}; ${options.pairs} alternating pair(s) of ${options.messages} SMS with callbacks`,
    },
    { name: 'routing: many routes / one', value: (many / one) * 100, unit: '%', target: { op: '>=', value: 95 } },
  ];
}

/** Inserts the table in one statement, then has Herald reload it (the version moves; resolve reloads the process). */
async function bigTable(db: pg.Pool, url: string, routes: number): Promise<void> {
  const half = Math.floor(routes / 2);
  await db.query(
    `INSERT INTO routes (priority, channel_type, match, connectors, strategy, created_at, updated_at)
     SELECT 0, 'SMS', jsonb_build_object('channelType', 'SMS', 'prefixes', jsonb_build_array((7916000 + n)::text)),
       jsonb_build_array(jsonb_build_object('connectorId', $1::text, 'weight', null,
         'buyPrice', jsonb_build_object('amount', '0.300000', 'currency', 'RUB'))), 'ordered', now(), now()
     FROM generate_series(0, $2::int - 1) AS n
     UNION ALL
     SELECT 0, 'SMS', jsonb_build_object('channelType', 'SMS', 'accountIds', jsonb_build_array(100000 + n),
         'operators', jsonb_build_array('МТС')),
       jsonb_build_array(jsonb_build_object('connectorId', $1::text, 'weight', null, 'buyPrice', null)), 'ordered',
       now(), now()
     FROM generate_series(0, $3::int - 1) AS n`,
    [CONNECTOR, half, routes - half],
  );
  // The portability base: 1,000,000 numbers of the run's range ported to МегаФон (every 7th from 79160000000), as a
  // finished import leaves it; each batch of the run then looks its numbers up in it.
  const [operator] = (
    await db.query<{ id: number }>(
      `INSERT INTO mnp_operators (owner_id, brand) VALUES ('mMEGAFON', 'МЕГАФОН') RETURNING id`,
    )
  ).rows;
  await db.query(
    `INSERT INTO mnp_numbers (number, operator_id, mnc, ported_at)
     SELECT 79160000000 + n * 7, $1, 2, now() FROM generate_series(0, $2::int - 1) AS n`,
    [operator!.id, PORTED],
  );
  await db.query(
    `INSERT INTO mnp_imports (state, rows, loaded, started_at, progress_at, finished_at)
    VALUES ('done', $1, $1, now(), now(), now())`,
    [PORTED],
  );
  await db.query('ANALYZE mnp_numbers');
  await db.query('UPDATE route_book SET version = version + 1');
  const http = new Pool(url);
  try {
    const reply = await http.request({
      method: 'GET',
      path: '/admin/v1/routes/resolve?destination=79160001230&channelType=SMS',
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
    });
    const body = (await reply.body.json()) as { routeId?: number; connectorId?: string };
    if (reply.statusCode !== 200 || body.connectorId !== CONNECTOR)
      throw new Error(`the big route table is not in effect: ${JSON.stringify(body)}`);
  } finally {
    await http.close();
  }
}
