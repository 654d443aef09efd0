import { mkdirSync, writeFileSync } from 'node:fs';
import { benchIngest } from './ingest.js';
import { type BenchFigure, createBenchSchema, machineDescription, meetsTarget, postgresVersion, renderTable } from './lib.js';

/**
 * `npm run bench`: every benchmark in one run against a real PostgreSQL, a table at the end, the same figures in
 * bench/results/latest.json. Knobs: BENCH_SECONDS, BENCH_CLIENTS, BENCH_API_PROCS, BENCH_DATABASE_URL.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 4);
const apiProcesses = Number(process.env.BENCH_API_PROCS ?? 1);

const machine = machineDescription();
const database = await postgresVersion();
process.stdout.write(`Herald benchmarks on ${machine}; ${database}\n\n`);

const figures: BenchFigure[] = [];
const schema = await createBenchSchema();
try {
  process.stdout.write(`ingest: ${clients} clients for ${seconds} s...\n`);
  figures.push(...(await benchIngest({ schema, seconds, clients, apiProcesses, batch: 1000 })));
} finally {
  await schema.drop();
}

process.stdout.write(`\n${renderTable(figures)}\n`);
mkdirSync('bench/results', { recursive: true });
const result = {
  time: new Date().toISOString(),
  machine,
  database,
  figures: figures.map((f) => ({ ...f, met: meetsTarget(f) })),
};
writeFileSync('bench/results/latest.json', `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write('\nwritten to bench/results/latest.json\n');
