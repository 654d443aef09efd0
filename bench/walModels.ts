import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { type BenchFigure, createBenchSchema, processCpuSeconds } from './lib.js';

/*
 * What a message's durable life writes under other layouts of the messages table (issue 35, docs/scaling.md), before
 * any of them is built: the same life (an insert in batches of 1000; claims of 500, each followed CLAIMS_IN_FLIGHT
 * claims later by the `sent` of what it took, in batches of 250, as a worker's connectors hand them back; then the
 * final status in batches of 250) written in plain SQL to tables made from Herald's own schema (migrated into a fresh
 * schema), and the WAL, the HOT share of the updates and the statements' time measured per step. The layouts:
 *   - current: `messages` as it is (LIKE messages INCLUDING ALL): every index, the queue and the receipt expiry as
 *     partial indexes of it.
 *   - claim as one record: the same, a claim writing one row for all it takes instead of a version of each row.
 *   - queue table, fillfactor N: every index that names `status` or `due_at` left out (the dispatch index keyed
 *     without status), the queue and the expiry in a narrow table of their own (inserted with the message, its due
 *     time moved by the claim and by `sent`, deleted at the final status), the messages table at fillfactor N.
 *   - queue table, gone at sent: the queue table at fillfactor 100, its row deleted by `sent`, which leaves the
 *     message's row alone: that is updated once, at the final status.
 *   - in-flight table, gone at final: the queue table's row also holds what `sent` records (updated by it), and goes
 *     at the final status, which updates the message's row once.
 *   - state table: `messages` written once (insert only) and what changes in a narrow row of its own (status, times,
 *     lease, history), which carries the queue's and the expiry's indexes.
 */

const INSERT_BATCH = 1000;
const CLAIM_BATCH = 500;
const OUTCOME_BATCH = 250;

interface Model {
  readonly name: string;
  /** Tables made in the schema: `m` (the messages' layout) and what else the model keeps. */
  setup(c: pg.Client): Promise<void>;
  insert(c: pg.Client, first: number, count: number): Promise<void>;
  claim(c: pg.Client, count: number): Promise<void>;
  sent(c: pg.Client, first: number, count: number): Promise<void>;
  /** After the `sent` of a claim's messages (the claim-record layout forgets its record). */
  claimDone?(c: pg.Client): Promise<void>;
  final(c: pg.Client, first: number, count: number): Promise<void>;
}

/** The n-th message's id: a version 7 UUID, in order. */
const idOf = (n: string): string => `('00000000-0000-7000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;
const idRange = (column: string): string => `${column} >= ${idOf('$1::int')} AND ${column} < ${idOf('$2::int')}`;

/** The columns the layouts' inserts write. */
const INSERTED_COLUMNS = `account_id, id, created_at, channel_type, sender_name, destination, country, brand, content,
  total_parts, status, status_at, due_at, deadline_at, history, price, currency, callback_target_id, traffic_type,
  callback_url, callback_events, expires_at, route_id, buy_price, buy_currency`;
/** A message of the benchmarks' kind: an SMS with a callback target, priced, routed. */
const messageValues = (history: string): string => `7, ${idOf('g')}, now(), 'SMS', 'Herald',
  '7900' || lpad((1234567 + g)::text, 7, '0'), 'RU', 'mts',
  '{"text": "Your code is 123456. Do not share it with anyone."}'::jsonb, 1, 'sending', now(), now(),
  now() + interval '1 day', ${history}, 1.25, 'RUB', 3, 'SERVICE', 'http://127.0.0.1:9999/callbacks',
  '{delivered,undelivered}', now() + interval '1 day', 5, 0.8, 'RUB'`;
const entry = (status: string): string => `jsonb_build_array(jsonb_build_object('status', '${status}', 'at', now()))`;

/** messages' own indexes, made on `table`, but those whose definition names one of `without`. */
async function copyIndexes(c: pg.Client, table: string, without: RegExp): Promise<void> {
  const { rows } = await c.query<{ indexdef: string }>(
    `SELECT indexdef FROM pg_indexes WHERE tablename = 'messages' AND schemaname = current_schema()`,
  );
  for (const { indexdef } of rows) {
    const definition = indexdef.replace(/^.*? USING /, '');
    if (without.test(definition)) continue;
    await c.query(`CREATE ${/UNIQUE/.test(indexdef) ? 'UNIQUE ' : ''}INDEX ON ${table} USING ${definition}`);
  }
}

/**
 * `m` as `messages` without the indexes that name `status` or `due_at` (the queue's, the expiry's, the dispatch
 * index's key): what a layout that keeps the queue elsewhere leaves on it.
 */
async function messagesWithoutQueue(c: pg.Client, fillfactor = 100): Promise<void> {
  await c.query(
    `CREATE TABLE m (LIKE messages INCLUDING DEFAULTS) WITH (fillfactor = ${fillfactor}, autovacuum_enabled = false)`,
  );
  await c.query('ALTER TABLE m ADD PRIMARY KEY (account_id, id)');
  await copyIndexes(c, 'm', /\b(status|due_at)\b|\(account_id, id\)$/);
}

const current: Model = {
  name: 'current',
  setup: async (c) => {
    await c.query('CREATE TABLE m (LIKE messages INCLUDING ALL) WITH (autovacuum_enabled = false)');
  },
  insert: async (c, first, count) => {
    await c.query(
      `INSERT INTO m (${INSERTED_COLUMNS}) SELECT ${messageValues(entry('sending'))}
       FROM generate_series($1::int, $2::int) g`,
      [first, first + count - 1],
    );
  },
  claim: (c, count) => lease(c, 'm', count),
  sent: (c, first, count) => outcome(c, 'm', first, count, SENT_SET),
  final: (c, first, count) => outcome(c, 'm', first, count, FINAL_SET),
};

/** What `sent` and the final status change (the outcome statement's SET). */
const SENT_SET = `status = 'sent', status_at = now(), sent_at = now(), lease_expires_at = NULL,
  connector_id = 'smsc-main', due_at = now() + interval '1 day', history = history || ${entry('sent')}`;
const FINAL_SET = `status = 'delivered', status_at = now(), due_at = NULL, price_final = true, parts_delivered = 1,
  history = history || ${entry('delivered')}`;
/** Both, at the final status, for a layout whose `sent` does not write the message's row. */
const SENT_AND_FINAL_SET = `status = 'delivered', status_at = now(), sent_at = now(), lease_expires_at = NULL,
  connector_id = 'smsc-main', due_at = NULL, price_final = true, parts_delivered = 1,
  history = history || ${entry('sent')} || ${entry('delivered')}`;

/** The claim's shape: the first due rows no one holds, leased (their due time moved to the lease's end). */
async function lease(c: pg.Client, table: string, count: number): Promise<void> {
  await c.query(
    `WITH due AS (
       SELECT ctid FROM ${table} WHERE status = 'sending' AND channel_type = 'SMS' AND traffic_type = 'SERVICE'
         AND due_at <= now() ORDER BY due_at, id LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE ${table} t SET due_at = now() + interval '1 minute', lease_expires_at = now() + interval '1 minute',
       attempts = t.attempts + 1
     FROM due WHERE t.ctid = due.ctid`,
    [count],
  );
}

/**
 * The outcome statement's shape: the rows locked in order, then updated by the version locked; or, not `locked`, the
 * rows updated as found (Herald's outcome statement locks none first in the common case).
 */
async function outcome(c: pg.Client, table: string, first: number, count: number, set: string, locked = true) {
  await c.query(
    locked
      ? `WITH l AS (SELECT ctid FROM ${table} WHERE account_id = 7 AND ${idRange('id')} ORDER BY id FOR UPDATE)
         UPDATE ${table} t SET ${set} FROM l WHERE t.ctid = l.ctid`
      : `UPDATE ${table} SET ${set} WHERE account_id = 7 AND ${idRange('id')}`,
    [first, first + count],
  );
}

/** The claims' records: a row a claim, its lease and the ids it took. */
async function claimRecordTable(c: pg.Client): Promise<void> {
  await c.query(
    `CREATE TABLE cr (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, until timestamptz NOT NULL,
       ids uuid[] NOT NULL) WITH (autovacuum_enabled = false)`,
  );
}

/** A claim written as one record of the ids it takes from `table` (their rows locked, or not). */
async function recordClaim(c: pg.Client, table: string, count: number, lock: boolean): Promise<void> {
  await c.query(
    `WITH held AS (SELECT unnest(ids) AS id FROM cr WHERE until > now()),
     due AS (
       SELECT id FROM ${table} WHERE status = 'sending' AND channel_type = 'SMS' AND traffic_type = 'SERVICE'
         AND due_at <= now() AND id NOT IN (SELECT id FROM held)
       ORDER BY due_at, id LIMIT $1${lock ? ' FOR UPDATE SKIP LOCKED' : ''}
     )
     INSERT INTO cr (until, ids) SELECT now() + interval '1 minute', array_agg(id) FROM due`,
    [count],
  );
}

/**
 * `messages` as it is, but a claim writes one row for all it takes (the lease and the ids) instead of moving each
 * message's due time: the claimed messages stay at the head of the queue's index, and the next claims skip the ids
 * of the claims whose lease has not ended. The record goes once its messages are sent.
 */
const claimRecord: Model = {
  name: 'claim as one record',
  setup: async (c) => {
    await current.setup(c);
    await claimRecordTable(c);
  },
  insert: (c, first, count) => current.insert(c, first, count),
  claim: (c, count) => recordClaim(c, 'm', count, false),
  sent: (c, first, count) => outcome(c, 'm', first, count, SENT_SET),
  claimDone: async (c) => {
    await c.query('DELETE FROM cr WHERE id = (SELECT min(id) FROM cr)');
  },
  final: (c, first, count) => outcome(c, 'm', first, count, FINAL_SET),
};

function queueModel(fillfactor: number): Model {
  return {
    name: `queue table, fillfactor ${fillfactor}`,
    setup: async (c) => {
      await messagesWithoutQueue(c, fillfactor);
      await c.query('CREATE INDEX ON m (account_id, dispatch_id) WHERE dispatch_id IS NOT NULL');
      await c.query(
        `CREATE TABLE q (account_id bigint NOT NULL, message_id uuid NOT NULL, channel_type text NOT NULL,
           traffic_type text NOT NULL, waiting boolean NOT NULL DEFAULT false, due_at timestamptz NOT NULL,
           PRIMARY KEY (account_id, message_id)) WITH (autovacuum_enabled = false)`,
      );
      await c.query('CREATE INDEX ON q (channel_type, traffic_type, due_at, message_id) WHERE NOT waiting');
      await c.query('CREATE INDEX ON q (due_at, message_id) WHERE waiting');
    },
    insert: async (c, first, count) => {
      await c.query(
        `WITH i AS (
           INSERT INTO m (${INSERTED_COLUMNS}) SELECT ${messageValues(entry('sending'))}
           FROM generate_series($1::int, $2::int) g
           RETURNING account_id, id, channel_type, traffic_type, due_at
         )
         INSERT INTO q (account_id, message_id, channel_type, traffic_type, due_at)
         SELECT account_id, id, channel_type, traffic_type, due_at FROM i`,
        [first, first + count - 1],
      );
    },
    claim: async (c, count) => {
      await c.query(
        `WITH due AS (
           SELECT ctid FROM q WHERE NOT waiting AND channel_type = 'SMS' AND traffic_type = 'SERVICE'
             AND due_at <= now() ORDER BY due_at, message_id LIMIT $1 FOR UPDATE SKIP LOCKED
         )
         UPDATE q SET due_at = now() + interval '1 minute' FROM due WHERE q.ctid = due.ctid`,
        [count],
      );
    },
    sent: async (c, first, count) => {
      await outcome(c, 'm', first, count, SENT_SET);
      await c.query(
        `UPDATE q SET waiting = true, due_at = now() + interval '1 day'
         WHERE account_id = 7 AND ${idRange('message_id')}`,
        [first, first + count],
      );
    },
    final: async (c, first, count) => {
      await outcome(c, 'm', first, count, FINAL_SET);
      await c.query(`DELETE FROM q WHERE account_id = 7 AND ${idRange('message_id')}`, [first, first + count]);
    },
  };
}

/**
 * The queue table at fillfactor 100, its row deleted by `sent` (the wait for a receipt read from the submissions,
 * written anyway), and the message's row updated once, at its final status, with what `sent` would have written to
 * it (docs/scaling.md, "What it would save").
 */
const queueGoneAtSent: Model = {
  ...queueModel(100),
  name: 'queue table, gone at sent',
  sent: async (c, first, count) => {
    await c.query(`DELETE FROM q WHERE account_id = 7 AND ${idRange('message_id')}`, [first, first + count]);
  },
  final: (c, first, count) => outcome(c, 'm', first, count, SENT_AND_FINAL_SET),
};

/**
 * A narrow row for a message in flight, from its acceptance to its final status: the queue (due time, lane) and what
 * `sent` records until the end (status, time, connector), updated by `sent` and deleted at the final status, which
 * updates the message's row once with all of it. Between the two, a reader finds the message's state in the narrow
 * row (docs/scaling.md, "What it would save").
 */
const inFlightTable: Model = {
  name: 'in-flight table, gone at final',
  setup: async (c) => {
    await messagesWithoutQueue(c);
    await c.query('CREATE INDEX ON m (account_id, dispatch_id) WHERE dispatch_id IS NOT NULL');
    await c.query(
      `CREATE TABLE q (account_id bigint NOT NULL, message_id uuid NOT NULL, channel_type text NOT NULL,
         traffic_type text NOT NULL, status text NOT NULL DEFAULT 'sending', due_at timestamptz NOT NULL,
         sent_at timestamptz, connector_id text, PRIMARY KEY (account_id, message_id))
       WITH (autovacuum_enabled = false)`,
    );
    await c.query(`CREATE INDEX ON q (channel_type, traffic_type, due_at, message_id) WHERE status = 'sending'`);
    await c.query(`CREATE INDEX ON q (due_at, message_id) WHERE status = 'sent'`);
  },
  insert: (c, first, count) => queueModel(100).insert(c, first, count),
  claim: async (c, count) => {
    await c.query(
      `WITH due AS (
         SELECT ctid FROM q WHERE status = 'sending' AND channel_type = 'SMS' AND traffic_type = 'SERVICE'
           AND due_at <= now() ORDER BY due_at, message_id LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE q SET due_at = now() + interval '1 minute' FROM due WHERE q.ctid = due.ctid`,
      [count],
    );
  },
  sent: async (c, first, count) => {
    await c.query(
      `UPDATE q SET status = 'sent', due_at = now() + interval '1 day', sent_at = now(), connector_id = 'smsc-main'
       WHERE account_id = 7 AND ${idRange('message_id')}`,
      [first, first + count],
    );
  },
  final: async (c, first, count) => {
    await outcome(c, 'm', first, count, SENT_AND_FINAL_SET);
    await c.query(`DELETE FROM q WHERE account_id = 7 AND ${idRange('message_id')}`, [first, first + count]);
  },
};

/**
 * The state table's insert: the message written once, its state row, and `alongside` (further CTEs over `i`, the
 * inserted messages: the rows a message needs besides its own).
 */
async function stateInsert(c: pg.Client, first: number, count: number, alongside = ''): Promise<void> {
  await c.query(
    `WITH i AS (
       INSERT INTO m (${INSERTED_COLUMNS}) SELECT ${messageValues("'[]'")}
       FROM generate_series($1::int, $2::int) g
       RETURNING account_id, id, channel_type, traffic_type, destination
     )${alongside}
     INSERT INTO s (account_id, id, status, status_at, due_at, channel_type, traffic_type, history)
     SELECT account_id, id, 'sending', now(), now(), channel_type, traffic_type, ${entry('sending')} FROM i`,
    [first, first + count - 1],
  );
}

const stateTable: Model = {
  name: 'state table',
  setup: async (c) => {
    await messagesWithoutQueue(c);
    await c.query(
      `CREATE TABLE s (account_id bigint NOT NULL, id uuid NOT NULL, status text NOT NULL,
         status_at timestamptz NOT NULL, due_at timestamptz, lease_expires_at timestamptz, attempts int NOT NULL
         DEFAULT 0, sent_at timestamptz, connector_id text, error_code int, price_final boolean NOT NULL DEFAULT false,
         parts_delivered int NOT NULL DEFAULT 0, channel_type text NOT NULL, traffic_type text NOT NULL,
         history jsonb NOT NULL, PRIMARY KEY (account_id, id)) WITH (autovacuum_enabled = false)`,
    );
    await c.query(`CREATE INDEX ON s (channel_type, traffic_type, due_at, id) WHERE status = 'sending'`);
    await c.query(`CREATE INDEX ON s (due_at, id) WHERE status IN ('sent', 'delivered') AND due_at IS NOT NULL`);
  },
  insert: (c, first, count) => stateInsert(c, first, count),
  claim: (c, count) => lease(c, 's', count),
  sent: (c, first, count) => outcome(c, 's', first, count, SENT_SET),
  final: (c, first, count) => outcome(c, 's', first, count, FINAL_SET),
};

/**
 * The least a message of today's contract writes (issue 35's floor): the state table's layout with the claim as one
 * record (its rows still locked, as the design needs: docs/scaling.md), and the rows a message needs besides its own:
 * its destination's for the list's search, the flood filter's append (unlogged, a row a destination), and at `sent`
 * its submission, by which its receipt finds it.
 */
const contractFloor: Model = {
  name: 'state table, claim record, and the other rows',
  setup: async (c) => {
    await stateTable.setup(c);
    await claimRecordTable(c);
    await c.query(
      `CREATE TABLE d (account_id bigint NOT NULL, id uuid NOT NULL, destination text NOT NULL)
       WITH (autovacuum_enabled = false)`,
    );
    await c.query('CREATE INDEX ON d (account_id, destination)');
    await c.query('CREATE TABLE sub (LIKE submissions INCLUDING ALL) WITH (autovacuum_enabled = false)');
    await c.query('CREATE UNLOGGED TABLE f (LIKE flood_recent INCLUDING ALL) WITH (fillfactor = 80)');
  },
  insert: async (c, first, count) => {
    await stateInsert(
      c,
      first,
      count,
      `,
     d AS (INSERT INTO d (account_id, id, destination) SELECT account_id, id, destination FROM i)`,
    );
    await c.query(
      `INSERT INTO f AS f (account_id, destination, sent_at, texts, last_at)
       SELECT 7, '7900' || lpad((1234567 + g)::text, 7, '0'), ARRAY[now()], ARRAY[42], now()
       FROM generate_series($1::int, $2::int) g
       ON CONFLICT (account_id, destination) DO UPDATE SET sent_at = f.sent_at || excluded.sent_at,
         texts = f.texts || excluded.texts, last_at = excluded.last_at`,
      [first, first + count - 1],
    );
  },
  claim: (c, count) => recordClaim(c, 's', count, true),
  sent: async (c, first, count) => {
    await outcome(c, 's', first, count, SENT_SET, false);
    await c.query(
      `INSERT INTO sub (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
       SELECT 'smsc-main', to_hex(g), 7, ${idOf('g')}, 1, 1, now() FROM generate_series($1::int, $2::int - 1) g`,
      [first, first + count],
    );
  },
  claimDone: (c) => claimRecord.claimDone!(c),
  final: (c, first, count) => outcome(c, 's', first, count, FINAL_SET, false),
};

interface Step {
  wal: number;
  ms: number;
  /** The server's CPU (its backend's for the connection), in seconds. */
  cpu: number;
}

/**
 * Runs `work` and adds the WAL it wrote, its time and the server's CPU to `into`: that of `backend`, the server process
 * serving the connection (pg_backend_pid(); the server runs on this machine, as the benchmarks' does).
 */
async function step(c: pg.Client, backend: number, into: Step, work: () => Promise<void>): Promise<void> {
  const from = (await c.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn;
  const cpu = processCpuSeconds(backend);
  const started = performance.now();
  await work();
  into.ms += performance.now() - started;
  into.cpu += processCpuSeconds(backend) - cpu;
  const { rows } = await c.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1)::text AS b', [
    from,
  ]);
  into.wal += Number(rows[0]!.b);
}

/** Claims in flight when the next claim runs: the worker's connectors hold what it claimed before. */
const CLAIMS_IN_FLIGHT = 2;

/** Every table a layout makes: a run starts and ends without them. */
const DROP_TABLES = 'DROP TABLE IF EXISTS m, q, s, cr, d, sub, f';

/** One layout's run: its WAL a message, and the line that tells it step by step. */
async function runModel(
  url: string,
  model: Model,
  messages: number,
): Promise<{ bytes: number; cpu: number; line: string }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(DROP_TABLES);
    const backend = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await model.setup(c);
    await c.query('CHECKPOINT');
    const [insert, claim, sent, final]: Step[] = [0, 1, 2, 3].map(() => ({ wal: 0, ms: 0, cpu: 0 }));
    await step(c, backend, insert!, async () => {
      for (let n = 0; n < messages; n += INSERT_BATCH) {
        await model.insert(c, n + 1, Math.min(INSERT_BATCH, messages - n));
      }
    });
    // Claims and the `sent` of what was claimed interleave, CLAIMS_IN_FLIGHT claims behind, as in a worker.
    const claims = Math.ceil(messages / CLAIM_BATCH);
    for (let k = 0; k < claims + CLAIMS_IN_FLIGHT; k++) {
      if (k < claims) await step(c, backend, claim!, () => model.claim(c, CLAIM_BATCH));
      const done = k - CLAIMS_IN_FLIGHT;
      if (done < 0) continue;
      await step(c, backend, sent!, async () => {
        for (let n = done * CLAIM_BATCH; n < (done + 1) * CLAIM_BATCH; n += OUTCOME_BATCH) {
          await model.sent(c, n + 1, OUTCOME_BATCH);
        }
        await model.claimDone?.(c);
      });
    }
    await step(c, backend, final!, async () => {
      for (let n = 0; n < messages; n += OUTCOME_BATCH) await model.final(c, n + 1, OUTCOME_BATCH);
    });
    await c.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await c.query<{ upd: string; hot: string; size: string }>(
      `SELECT sum(n_tup_upd)::text AS upd, sum(n_tup_hot_upd)::text AS hot,
         pg_size_pretty(pg_total_relation_size('m')) AS size
       FROM pg_stat_user_tables WHERE relid = 'm'::regclass`,
    );
    const steps = [insert!, claim!, sent!, final!];
    const us = (seconds: number): string => ((seconds * 1e6) / messages).toFixed(0);
    const per = (s: Step): string => `${Math.round(s.wal / messages)} B ${us(s.ms / 1000)} us (CPU ${us(s.cpu)})`;
    const sum = (of: (s: Step) => number): number => steps.reduce((total, s) => total + of(s), 0);
    const hot = rows[0]!;
    const bytes = Math.round(sum((s) => s.wal) / messages);
    const cpu = (sum((s) => s.cpu) * 1000) / messages;
    const line =
      `  ${model.name.padEnd(26)} ${String(bytes).padStart(5)} B a message, ${us(sum((s) => s.ms) / 1000)} us, ` +
      `the server's CPU ${us(sum((s) => s.cpu))} us | insert ${per(insert!)}, claim ${per(claim!)}, ` +
      `sent ${per(sent!)}, final ${per(final!)} | messages' updates HOT ${hot.hot}/${hot.upd}, its size ${hot.size}`;
    return { bytes, cpu, line };
  } finally {
    await c.query(DROP_TABLES).catch(() => undefined);
    await c.end();
  }
}

/** Each model in turn, `rounds` times, on a fresh schema migrated by Herald itself. */
export async function benchWalModels(options: { messages: number; rounds: number }): Promise<BenchFigure[]> {
  const schema = await createBenchSchema();
  try {
    execFileSync(process.execPath, ['bin/herald.js', 'migrate'], {
      env: { ...process.env, DATABASE_URL: schema.url },
      stdio: 'ignore',
    });
    const models = [
      current,
      claimRecord,
      queueModel(100),
      queueModel(70),
      queueModel(50),
      queueGoneAtSent,
      inFlightTable,
      stateTable,
      contractFloor,
    ];
    const figures: BenchFigure[] = [];
    for (let round = 0; round < options.rounds; round++) {
      for (const model of models) {
        const { bytes, cpu, line } = await runModel(schema.url, model, options.messages);
        process.stdout.write(`${line}\n`);
        if (round === options.rounds - 1) {
          const what = `of insert, claim, sent and final, ${options.messages} messages in plain SQL (no callbacks)`;
          figures.push(
            { name: `wal models: ${model.name}`, value: bytes, unit: 'B/msg', note: `WAL ${what}` },
            {
              name: `wal models: ${model.name}, the server's CPU`,
              value: cpu,
              unit: 'ms/msg',
              note: `its backend's CPU ${what}, one connection`,
            },
          );
        }
      }
    }
    return figures;
  } finally {
    await schema.drop();
  }
}
