import pg from 'pg';
import { startCountingReceiver } from './endToEnd.js';
import { type BenchFigure, type BenchSchema, startHeraldProcess } from './lib.js';

/**
 * Callbacks: `events` delivered-status events are put in the outbox of `targets` callback URLs (one local
 * receiver), then a Herald worker process delivers them; the figure is events per second until the receiver has
 * them all, batched 100 to a POST.
 */
export async function benchCallbacks(options: {
  schema: BenchSchema;
  events: number;
  targets: number;
}): Promise<BenchFigure[]> {
  const receiver = await startCountingReceiver();
  const env = {
    DATABASE_URL: options.schema.url,
    HERALD_PORT: '0',
    HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
    HERALD_ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
  };
  // The api process migrates the schema; the worker delivers.
  const api = await startHeraldProcess('api', env);
  const db = new pg.Client({ connectionString: options.schema.url });
  await db.connect();
  let worker;
  try {
    const [account] = (
      await db.query(
        `INSERT INTO accounts (name, currency, callback_secret, created_at, updated_at)
         VALUES ('bench', 'RUB', 'secret', now(), now()) RETURNING id`,
      )
    ).rows;
    const targets = (
      await db.query(
        `INSERT INTO callback_targets (account_id, url, created_at, used_at)
         SELECT $1, $2 || '?t=' || g, now(), now() FROM generate_series(1, $3) g RETURNING id`,
        [account.id, receiver.url, options.targets],
      )
    ).rows.map((r) => r.id as number);
    await db.query(
      `INSERT INTO callback_cursors SELECT t, l, '0', 0 FROM unnest($1::bigint[]) t, generate_series(0, 15) l`,
      [targets],
    );
    await db.query(
      `INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at)
       SELECT ($3::bigint[])[1 + g % array_length($3::bigint[], 1)], g % 16, $1, gen_random_uuid(), 'delivered', 'SMS',
         'delivered', now()
       FROM generate_series(1, $2) g`,
      [account.id, options.events, targets],
    );
    const start = performance.now();
    worker = await startHeraldProcess('worker', env, /(no connectors configured)/);
    while (receiver.count() < options.events) {
      if (performance.now() - start > 300_000)
        throw new Error(`only ${receiver.count()} of ${options.events} callbacks`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const elapsed = (performance.now() - start) / 1000;
    return [
      {
        name: 'callbacks delivered',
        value: options.events / elapsed,
        unit: 'events/s',
        note:
          `${options.events} events to ${options.targets} URLs of a local receiver, ${receiver.posts()} POSTs, ` +
          `incl. worker start, ${elapsed.toFixed(1)} s`,
      },
    ];
  } finally {
    await db.end();
    await worker?.stop();
    await api.stop();
    await receiver.stop();
  }
}
