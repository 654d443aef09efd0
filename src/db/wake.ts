import type { Queryable } from './db.js';

/**
 * Wake-ups across processes: a transaction that stores work for the workers (due messages, callback events) notifies
 * a topic with `pg_notify`, which PostgreSQL delivers at its commit (never before, never for a rollback) to every
 * connection that LISTENs; a worker's listener then wakes its loop at once instead of waiting for its next poll.
 * The channel is named after the schema the tables live in, so that deployments (and tests) sharing a database in
 * different schemas do not wake each other.
 */
export type WakeTopic = 'messages' | 'callbacks' | 'routes' | 'receipts';

/** The notification channel of the tables in `schema`. */
export function wakeChannel(schema: string): string {
  return `herald_wake_${schema}`.slice(0, 63);
}

/**
 * Wakes the listeners of `topic`: at once on the database itself, at the commit in a transaction. An api process
 * runs it after the commit that stored the messages, not in that transaction: PostgreSQL serialises the commits of
 * notifying transactions (a cluster-wide lock held through the commit's WAL flush), which cut end-to-end throughput
 * by more than half when every send transaction notified (measured, bench e2e).
 */
export async function wakeAtCommit(tx: Queryable, topic: WakeTopic): Promise<void> {
  await tx.query(`SELECT pg_notify(left('herald_wake_' || current_schema(), 63), $1)`, [topic]);
}

/** Where a process hears the wake-ups of its database: see {@link Db.listenWakeups}. */
export interface WakeListener {
  /** Called with each topic notified (several notifications of a burst may arrive as they were sent). */
  readonly onWake: (topic: WakeTopic) => void;
  /**
   * Called once the listening connection is (re)established: what was notified while it was down is lost, so the
   * caller catches up (one pass of each loop).
   */
  readonly onListening: () => void;
  /** A lost connection, before it is made again. */
  readonly onLost?: (error: Error) => void;
}
