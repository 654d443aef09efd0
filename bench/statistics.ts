import pg from 'pg';
import { openPostgres } from '../src/db/postgresDb.js';
import { rollUpStatistics } from '../src/statistics/rollup.js';
import type { Db } from '../src/db/db.js';
import {
  type BenchFigure,
  type BenchSchema,
  type HeraldProcess,
  percentile,
  startHeraldProcess,
  BENCH_ADMIN_TOKEN,
} from './lib.js';

const DAY_MS = 86_400_000;
const GROUPINGS = ['day', 'channelType', 'senderName', 'status', 'tag'] as const;
const RUNS = 15;

/**
 * Statistics: `messages` outbound messages of one account spread evenly over the last `days` days (channels,
 * sender names, statuses, tags, prices and clicked short links in realistic proportions, ids time-ordered like
 * real ones) plus another account's traffic, seeded with SQL. Figures: the rollup of the settled days, then the
 * 30-day query of each grouping through the HTTP API, median of 15 runs (target 300 ms); the live query without
 * rollups is printed for comparison.
 */
export async function benchStatistics(options: {
  schema: BenchSchema;
  messages: number;
  days: number;
}): Promise<BenchFigure[]> {
  const seeded = await startSeeded(options.schema, options.messages, options.days, 'bench statistics');
  const { api, db, account, now } = seeded;
  try {
    await seeded.client.query('ANALYZE');
    process.stdout.write(
      `  seeded ${options.messages} + ${options.messages / 4} messages in ${seeded.seconds.toFixed(0)} s\n`,
    );

    const query = async (groupBy: string): Promise<number> => {
      const started = performance.now();
      const reply = await fetch(`${api.url}/api/v1/statistics?groupBy=${groupBy}`, {
        headers: { authorization: `Basic ${account.tokens.system}` },
      });
      const body = (await reply.json()) as { total: { messages: number } };
      if (reply.status !== 200) throw new Error(`statistics answered ${reply.status}: ${JSON.stringify(body)}`);
      const elapsed = performance.now() - started;
      // The default range is the last 30 days: everything seeded but the part of the first day before it.
      if (body.total.messages < options.messages * 0.95)
        throw new Error(`statistics counted ${body.total.messages} messages`);
      return elapsed;
    };
    const median = async (groupBy: string): Promise<{ p50: number; p95: number }> => {
      await query(groupBy);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await query(groupBy));
      times.sort((a, b) => a - b);
      return { p50: percentile(times, 50), p95: percentile(times, 95) };
    };

    const live = await median('day');
    const rollupStart = performance.now();
    const rolled = await rollUpStatistics(db, new Date(now));
    const rollupSeconds = (performance.now() - rollupStart) / 1000;
    const figures: BenchFigure[] = [
      {
        name: 'statistics, 30 days by day, no rollup',
        value: live.p50,
        unit: 'ms',
        note: `median of ${RUNS}, p95 ${live.p95.toFixed(0)} ms, ${options.messages} messages counted live`,
      },
      {
        name: 'statistics rollup',
        value: rollupSeconds,
        unit: 's',
        note:
          `${rolled.days} days of ${options.messages * 1.25} messages (2 accounts), once; ` +
          `later runs roll up one new day`,
      },
    ];
    for (const groupBy of GROUPINGS) {
      const { p50, p95 } = await median(groupBy);
      figures.push({
        name: `statistics, 30 days by ${groupBy}`,
        value: p50,
        unit: 'ms',
        target: { op: '<=', value: 300 },
        note:
          `median of ${RUNS} API calls, p95 ${p95.toFixed(0)} ms, ${options.messages} messages, ` +
          `rolled up but the last 2 days`,
      });
    }
    return figures;
  } finally {
    await seeded.close();
  }
}

/** A Herald api process on a schema with an account's seeded messages, and connections to the schema. */
export interface Seeded {
  readonly api: HeraldProcess;
  readonly client: pg.Client;
  readonly db: Db;
  readonly account: { id: number; tokens: { system: string; traffic: string } };
  /** When the seed ends (ms): its messages are spread over the days before. */
  readonly now: number;
  /** How long the seed took. */
  readonly seconds: number;
  close(): Promise<void>;
}

/**
 * Starts a Herald api process on the schema, creates an account through it and seeds `messages` of its messages
 * over the last `days` days, and a quarter as many of another account's (see {@link seed}).
 */
export async function startSeeded(schema: BenchSchema, messages: number, days: number, name: string): Promise<Seeded> {
  const env = { DATABASE_URL: schema.url, HERALD_PORT: '0', HERALD_ADMIN_TOKEN: BENCH_ADMIN_TOKEN };
  const api = await startHeraldProcess('api', env);
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  const db = await openPostgres({ url: schema.url, poolSize: 2 });
  const close = async (): Promise<void> => {
    await db.close();
    await client.end();
    await api.stop();
  };
  try {
    const created = await fetch(`${api.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    const account = (await created.json()) as Seeded['account'];
    const [other] = (
      await client.query(
        `INSERT INTO accounts (name, currency, callback_secret, created_at, updated_at)
         VALUES ('other', 'RUB', 'secret', now(), now()) RETURNING id`,
      )
    ).rows;
    const now = Date.now();
    const started = performance.now();
    await seed(client, account.id, messages, now - days * DAY_MS, now);
    await seed(client, other.id, messages / 4, now - days * DAY_MS, now);
    return { api, client, db, account, now, seconds: (performance.now() - started) / 1000, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * `count` messages of one account evenly between `from` and `to` (ms), in 100,000-row statements. Ids are version 7
 * UUIDs of the creation time, like Herald's own; about 60% delivered, 20% sent, 10% undelivered, 10% unsent
 * (refunded); 80% SMS over 4 sender names, the rest VIBER and WHATSAPP; a third tagged; 1 in 20 with a short link,
 * half of them clicked; each to its own destination, in no order (g * 7919 mod 10^7 visits every number once), as
 * a destination index sees real traffic.
 */
export async function seed(
  client: pg.Client,
  accountId: number,
  count: number,
  from: number,
  to: number,
): Promise<void> {
  const step = (to - from) / count;
  const chunk = 100_000;
  for (let start = 0; start < count; start += chunk) {
    const end = Math.min(count, start + chunk);
    await client.query(
      `WITH inserted AS (
         INSERT INTO messages (account_id, id, created_at, channel_type, sender_name, destination, content, tags,
           total_parts, status, status_at, price, currency, price_final, price_refunded)
         SELECT $1, m.id, m.at,
           CASE WHEN g % 10 < 8 THEN 'SMS' WHEN g % 10 = 8 THEN 'VIBER' ELSE 'WHATSAPP' END,
           'Sender' || (g % 4), '7916' || lpad((g * 7919 % 10000000)::text, 7, '0'), '"Your code is 1234"'::jsonb,
           CASE g % 3 WHEN 0 THEN ARRAY['promo'] WHEN 1 THEN '{}'::text[] ELSE ARRAY['otp', 'vip'] END,
           1 + (g % 7 = 0)::int,
           CASE WHEN g % 10 < 6 THEN 'delivered' WHEN g % 10 < 8 THEN 'sent' WHEN g % 10 = 8 THEN 'undelivered'
             ELSE 'unsent' END,
           m.at, 2.5, 'RUB', true, g % 10 = 9
         FROM generate_series($2::bigint, $3::bigint) g,
           LATERAL (SELECT $4::float8 + g * $5::float8 AS ms) t,
           LATERAL (SELECT to_timestamp(t.ms / 1000) AS at,
             (lpad(to_hex(floor(t.ms)::bigint), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8'
               || substr(md5(g::text), 4, 15))::uuid AS id) m
         RETURNING account_id, id, created_at
       )
       INSERT INTO short_links (code, account_id, message_id, url, clicks, created_at)
       SELECT 'b' || i.account_id || '_' || i.id, i.account_id, i.id, 'https://shop.example/', (random() < 0.5)::int,
         i.created_at
       FROM inserted i WHERE get_byte(uuid_send(i.id), 15) % 20 = 0`,
      [accountId, start, end - 1, from, step],
    );
  }
}
