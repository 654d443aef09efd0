import os from 'node:os';
import { schemaDatabase, startPgBouncer } from '../test/ha/servers.js';
import { benchEndToEnd } from './endToEnd.js';
import { BENCH_DATABASE_URL, type BenchFigure, type BenchSchema } from './lib.js';

/** Herald's pool (HERALD_DB_POOL_SIZE of the end-to-end run) and as many server connections behind PgBouncer. */
const SERVER_CONNECTIONS = 12;
const TARGET_SHARE = 0.9;

/**
 * The end-to-end benchmark twice in one run, on fresh schemas: Herald straight on PostgreSQL, then through PgBouncer
 * in transaction mode (a loopback hop, the pooler's own process on the same cores). The figure held against the
 * target is the pooled rate as a share of the direct one.
 */
export async function benchPgBouncer(options: {
  messages: number;
  clients: number;
  withSchema: (run: (schema: BenchSchema) => Promise<BenchFigure[]>) => Promise<BenchFigure[]>;
}): Promise<BenchFigure[]> {
  const loadAtStart = os.loadavg()[0]!;
  const run = { messages: options.messages, clients: options.clients, delayMs: 20, split: false, callbacks: false };
  const [direct] = await options.withSchema((schema) => benchEndToEnd({ ...run, schema }));
  const [pooled] = await options.withSchema(async (schema) => {
    const bouncer = await startPgBouncer({
      databases: { herald: schemaDatabase(BENCH_DATABASE_URL, schema.name) },
      poolSize: SERVER_CONNECTIONS,
    });
    try {
      // As user postgres, trusted on loopback (PgBouncer's auth file knows only it), like the local server.
      return await benchEndToEnd({ ...run, schema, heraldUrl: bouncer.url('herald') });
    } finally {
      await bouncer.stop();
    }
  });
  const share = pooled!.value / direct!.value;
  return [
    { ...direct!, name: 'pgbouncer: end to end, direct', target: undefined },
    { ...pooled!, name: 'pgbouncer: end to end, through PgBouncer', target: undefined },
    {
      name: 'pgbouncer: pooled / direct',
      value: share * 100,
      unit: '%',
      target: { op: '>=', value: TARGET_SHARE * 100 },
      note:
        `${pooled!.value.toFixed(0)} against ${direct!.value.toFixed(0)} msg/s in the same run; PgBouncer ` +
        `transaction mode, ${SERVER_CONNECTIONS} server connections for Herald's pool of 12; 1-min load ` +
        `${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`,
    },
  ];
}
