import type { WakeListener } from './wake.js';

/** Something that runs parameterised SQL: the database itself or a transaction. */
export interface Queryable {
  /** Runs one parameterised statement (`$1`, `$2`, ...) and returns its rows. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * The one database interface of Herald, implemented over a `pg` pool (PostgreSQL) and over PGlite (embedded).
 * Both return int8 as a JavaScript number and numeric as a string, so callers never see the engines differ.
 */
export interface Db extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Listens for the wake-ups of this database (wake.ts) until the returned function is called. On PostgreSQL, on
   * a connection of its own (HERALD_LISTEN_DATABASE_URL: LISTEN needs a session, which a transaction pooler does
   * not keep), made again after a loss; resolves once listening, and rejects if the first connection fails.
   */
  listenWakeups(listener: WakeListener): Promise<() => Promise<void>>;
  /** Connections of the pool (PostgreSQL): open, idle, and requests waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * The same database for background work (workers): on PGlite, whose one connection serves everyone, its
   * statements give way to those of requests (see pgliteDb.ts); on PostgreSQL it is this database.
   */
  background?(): Db;
  /** The whole database as an uncompressed tarball (PGlite): what `openPglite`'s `loadDataDir` starts from. */
  dumpDataDir?(): Promise<Blob>;
}

/**
 * Marks a statement for a generic plan: planned once a connection, where PostgreSQL would plan it again for each
 * call's values (docs/scaling.md, "Generic plans"). For hot statements whose plan their values do not change (the
 * claim, the outcome statement, the insert of messages, the callbacks' forming); what a marked statement's values
 * must still choose (the partitions of an id span) is chosen as it starts, each call still locking every partition.
 * The PostgreSQL driver runs a marked statement that it has named with `plan_cache_mode` set to `force_generic_plan`
 * for that statement alone; elsewhere the mark is a comment.
 */
export const genericPlan = (sql: string): string => `${GENERIC_PLAN_MARK}${sql}`;

/** How a statement marked by {@link genericPlan} begins. */
export const GENERIC_PLAN_MARK = '/* generic plan */ ';

/** Whether `db` is a database (each statement its own transaction unless run in one) rather than a transaction. */
export const isDb = (db: Queryable): db is Db => 'transaction' in db;
