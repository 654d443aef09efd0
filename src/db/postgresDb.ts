import pg from 'pg';
import { runAfterCommit } from './afterCommit.js';
import { type Db, GENERIC_PLAN_MARK, type Queryable } from './db.js';
import { answeredByDatabase, commitError, isDatabaseUnavailable, isPreparedStatementLost } from './connectionErrors.js';
import { CONNECT_TIMEOUT_MS, KEEP_ALIVE } from './connectionSettings.js';
import { listenPostgres } from './postgresListener.js';
import { StatementNames } from './statementNames.js';
import type { WakeListener } from './wake.js';
import { timestamptzOf } from './timestamptzText.js';
import { replacing } from '../util/replaced.js';

// int8 (count(*), bigint ids) as a number: ids and counts stay far below 2^53, and PGlite does the same.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// timestamptz read by position where it has the usual shape, else by the driver's own parser.
pg.types.setTypeParser(
  pg.types.builtins.TIMESTAMPTZ,
  replacing(
    pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ),
    (driver) => (text: string) => timestamptzOf(text) ?? driver(text),
  ),
);

export interface PostgresOptions {
  readonly url: string;
  readonly poolSize: number;
  /**
   * A connection idle this long closes, beyond the {@link IDLE_CONNECTIONS} kept (default: the driver's 10 s; Herald's
   * processes give HERALD_DB_IDLE_SECONDS).
   */
  readonly idleMs?: number;
  /** Schema put first on the search path of every connection (tests and benchmarks isolate themselves so). */
  readonly schema?: string;
  readonly onError?: (error: Error) => void;
  /** The connection for LISTEN (HERALD_LISTEN_DATABASE_URL): a direct one, never through a transaction pooler. */
  readonly listenUrl?: string;
  /**
   * How long a new connection may take to be made, and again to take its setting (default {@link CONNECT_TIMEOUT_MS}).
   */
  readonly connectTimeoutMs?: number;
  /**
   * Whether repeated long statements are named, prepared once a connection (HERALD_DB_PREPARED_STATEMENTS; default
   * true): off behind a transaction pooler that does not keep them (PgBouncer before 1.21, or without
   * max_prepared_statements).
   */
  readonly preparedStatements?: boolean;
}

/**
 * One listening connection for all of a process's listeners (`Db.listenWakeups`): a LISTEN holds a server connection
 * of its own for as long as the process runs and hears every topic, and a process of role `all` with an SMPP server
 * had two (the worker's loops and the SMPP server's receipts). It is opened by the first listener and closed after
 * the last; each listener hears every wake-up, loss and new start of it, and one that comes while it listens is told
 * at once that it listens (its catch-up pass).
 */
function wakeHub(target: () => { url: string; schema?: string }): Db['listenWakeups'] {
  const listeners = new Set<WakeListener>();
  let listening: Promise<() => Promise<void>> | undefined;
  let connected = false;
  const hub: WakeListener = {
    onWake: (topic) => listeners.forEach((l) => l.onWake(topic)),
    onListening: () => {
      connected = true;
      listeners.forEach((l) => l.onListening());
    },
    onLost: (error) => {
      connected = false;
      listeners.forEach((l) => l.onLost?.(error));
    },
  };
  return async (listener) => {
    // Told by the hub when the connection it waits for is made; told here when it was made already.
    const late = connected;
    listeners.add(listener);
    listening ??= listenPostgres(target(), hub);
    const started = listening;
    try {
      await started;
    } catch (error) {
      listeners.delete(listener);
      if (listening === started) listening = undefined;
      throw error;
    }
    if (late) listener.onListening();
    return async () => {
      if (!listeners.delete(listener) || listeners.size > 0) return;
      listening = undefined;
      connected = false;
      const stop = await started;
      await stop();
    };
  };
}

/**
 * JIT compilation off for every connection (docs/scaling.md, "No JIT"): PostgreSQL compiles a statement whose
 * estimated cost passes jit_above_cost, and the claim over a backlog of 200,000 due messages (a dispatch, with its
 * statistics) passed it: 223 ms compiling a claim that runs in 6. Herald's statements are short and read by index;
 * none gains from it. A session setting: behind PgBouncer in transaction mode, set it for Herald's role as well.
 */
const NO_JIT = 'SET jit = off';

/** What a pool reports, once, when it turns naming off (docs/scaling.md, "Prepared statements"). */
const PREPARED_STATEMENTS_LOST =
  'a connection lost a prepared statement (a transaction pooler that does not keep them, such as PgBouncer before ' +
  '1.21, or a schema changed by a newer Herald): this pool names no more statements; set ' +
  'HERALD_DB_PREPARED_STATEMENTS=false behind such a pooler';

/** For a statement marked by genericPlan (db.ts), in its transaction; then the plans as configured again. */
const FORCE_GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';
const DEFAULT_PLANS = 'SET LOCAL plan_cache_mode TO DEFAULT';

/** Connections a pool keeps open however long they are idle. */
const IDLE_CONNECTIONS = 2;

/** A {@link Db} over a `pg` connection pool. */
export function openPostgres(options: PostgresOptions): Db {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // Kept open while idle: without a floor the pool closed every connection idle for 10 s, and an idle Herald's
    // rounds (a few every 5-10 s) opened new ones, each a server backend forked and authenticated again.
    min: Math.min(IDLE_CONNECTIONS, options.poolSize),
    // The others stay while traffic comes in bursts: a new connection plans each statement from cold caches.
    ...(options.idleMs !== undefined ? { idleTimeoutMillis: options.idleMs } : {}),
    ...KEEP_ALIVE,
    connectionTimeoutMillis: connectTimeoutMs,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    // Before the connection is handed over (the pool waits for it). A connection lost meanwhile, during the setting
    // or in the read that ends it, fails the borrower with its error; a server that refuses the setting is told, and
    // the connection kept.
    onConnect: async (client) => {
      // Every client listens for errors from its first moment, whoever holds it: the pool listens only on idle
      // clients, and an 'error' event without a listener ends the process. A dying primary's FATAL in the read that
      // ends the setting is kept, and fails the handover (the borrower gets it, 57P01 and all, rather than the
      // driver's "not queryable"); an idle client's error still reaches the pool's listener below.
      let lostMeanwhile: Error | undefined;
      client.on('error', (error) => {
        lostMeanwhile ??= error;
      });
      // The pool's connect timeout ends before this hook: a server that authenticated and then never answers the
      // setting would hold the borrower for ever. Its socket is destroyed, as the pool does on its own timeout.
      let unanswered: Error | undefined;
      const timer = setTimeout(() => {
        unanswered = new Error(`Connection terminated due to connection timeout: ${NO_JIT} not answered`);
        (client as pg.PoolClient & pg.Client).connection.stream.destroy();
      }, connectTimeoutMs);
      try {
        await client.query(NO_JIT);
      } catch (error) {
        if (unanswered) throw unanswered;
        if (isDatabaseUnavailable(error)) throw error;
        options.onError?.(new Error(`${NO_JIT} was refused: JIT stays on for this connection`, { cause: error }));
      } finally {
        clearTimeout(timer);
      }
      if (lostMeanwhile) throw lostMeanwhile;
    },
  });
  // An idle client's error (the server restarted) must not crash the process; the pool replaces the client.
  pool.on('error', (error) => options.onError?.(error));

  const names = new StatementNames(options.preparedStatements ?? true);
  /**
   * Queries on the pool, or on a transaction's client (`transaction`). The transaction is told of an error of a named
   * statement that is not the server's (a value that could not be sent: the driver then closes the statement on the
   * server, but may keep it as prepared), so that its client is destroyed at its end instead of returned with a name
   * it would use in vain. A transaction begun for one marked statement alone (`generic`) has generic plans forced
   * already, and ends with it.
   */
  const on = (
    client: pg.Pool | pg.PoolClient,
    transaction?: { distrust(error: Error): void; readonly generic?: boolean },
  ): Queryable => {
    const unnamed = async <R>(sql: string, params: readonly unknown[]): Promise<R[]> =>
      (await client.query(sql, params as unknown[])).rows as R[];
    const named = async <R>(name: string, sql: string, params: readonly unknown[]): Promise<R[]> => {
      try {
        return (await client.query({ name, text: sql, values: params as unknown[] })).rows as R[];
      } catch (error) {
        if (!answeredByDatabase(error)) transaction?.distrust(error as Error);
        if (!isPreparedStatementLost(error)) throw error;
        if (names.turnOff()) options.onError?.(new Error(PREPARED_STATEMENTS_LOST, { cause: error }));
        // The statement did not run. Alone, it runs again at once, unnamed; a transaction it was part of has failed,
        // and its caller tries it again (isTransactionConflict: 503 5031 to a client, a loop's next round).
        if (transaction) throw error;
        return unnamed<R>(sql, params);
      }
    };
    return {
      async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
        const name = names.of(sql, params.length);
        if (name === undefined) return unnamed<R>(sql, params);
        if (!sql.startsWith(GENERIC_PLAN_MARK)) return named<R>(name, sql, params);
        // The setting is local to a transaction (a transaction pooler keeps no session's), and put back after the
        // statement: an unnamed statement would be given a generic plan too, one made for a single call.
        if (!transaction) {
          try {
            return await inTransaction((tx) => tx.query<R>(sql, params), true);
          } catch (error) {
            // Naming is off now (named): the statement runs again at once, unnamed, as any statement alone.
            if (!isPreparedStatementLost(error)) throw error;
            return unnamed<R>(sql, params);
          }
        }
        if (transaction.generic) return named<R>(name, sql, params);
        await client.query(FORCE_GENERIC_PLANS);
        try {
          const rows = await named<R>(name, sql, params);
          await client.query(DEFAULT_PLANS);
          return rows;
        } catch (error) {
          // Failed in the driver (a value it could not send), the transaction goes on: its next statements not so.
          if (!answeredByDatabase(error)) await client.query(DEFAULT_PLANS).catch(() => undefined);
          throw error;
        }
      },
      async exec(sql: string): Promise<void> {
        await client.query(sql);
      },
    };
  };

  /** A transaction; `generic`: for one marked statement alone, begun with generic plans forced (one round trip). */
  const inTransaction = async <T>(fn: (tx: Queryable) => Promise<T>, generic = false): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    // A connection lost while this transaction holds it (the server restarted): the query under way fails by
    // itself, and the client is then destroyed instead of returned.
    const onError = (error: Error): void => {
      broken ??= error;
    };
    // A client the driver may have left with a name it closed (see on): destroyed too, but the commit goes ahead.
    let distrusted: Error | undefined;
    client.on('error', onError);
    try {
      await client.query(generic ? `BEGIN; ${FORCE_GENERIC_PLANS}` : 'BEGIN');
      const tx = on(client, { distrust: (error) => (distrusted ??= error), generic });
      const result = await fn(tx);
      // A connection lost before COMMIT was sent committed nothing: its own error, not an unknown outcome.
      if (broken) throw broken;
      await client.query('COMMIT').catch((error: unknown) => {
        throw commitError(error);
      });
      runAfterCommit(tx);
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      throw error;
    } finally {
      // A client whose connection broke or whose rollback failed is in an unknown state: destroy it rather
      // than return it to the pool.
      client.off('error', onError);
      client.release(broken ?? distrusted);
    }
  };

  return {
    engine: 'postgres',
    ...on(pool),
    transaction: (fn) => inTransaction(fn),
    async close(): Promise<void> {
      await pool.end();
    },
    listenWakeups: wakeHub(() => ({
      url: options.listenUrl ?? options.url,
      ...(options.schema ? { schema: options.schema } : {}),
    })),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
