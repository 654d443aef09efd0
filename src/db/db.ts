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
