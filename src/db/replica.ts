import type { Db } from './db.js';

/**
 * A read that must see the caller's own fresh writes (a message GET right after its send): tried on the replica,
 * which serves most such reads, and on the primary when the replica has no row yet (it lags behind the primary).
 * `reads` is the primary itself when no replica is configured: one read then.
 */
export async function readOwnWrite<T>(
  reads: Db,
  primary: Db,
  read: (db: Db) => Promise<T | undefined>,
): Promise<T | undefined> {
  const found = await read(reads);
  return found !== undefined || reads === primary ? found : read(primary);
}

/** How far a replica is behind its primary. */
export interface ReplicaLag {
  /** WAL the primary wrote that the replica has not replayed yet. */
  readonly bytes: number;
  /**
   * 0 when the replica has replayed all the primary had written when asked; else the age of the last transaction it
   * replayed. `now() - pg_last_xact_replay_timestamp()` alone grows while an idle primary commits nothing.
   */
  readonly seconds: number;
}

/**
 * Reads the replica's lag: the primary's WAL position first, then what the replica has replayed. A replica that is
 * not in recovery (the URL names a primary, or a promoted standby) has no lag.
 */
export async function replicaLag(primary: Db, replica: Db): Promise<ReplicaLag> {
  const [written] = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const [replayed] = await replica.query<{ recovery: boolean; lsn: string | null; since: number | null }>(
    `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn,
            extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS since`,
  );
  if (!replayed?.recovery || replayed.lsn === null) return { bytes: 0, seconds: 0 };
  const bytes = Math.max(0, lsnBytes(written!.lsn) - lsnBytes(replayed.lsn));
  return { bytes, seconds: bytes === 0 ? 0 : Math.max(0, replayed.since ?? 0) };
}

/** A `pg_lsn` ('16/B374D848') as a byte position (exact below 2^53: 8 PB of WAL). */
function lsnBytes(lsn: string): number {
  const [high, low] = lsn.split('/');
  return parseInt(high!, 16) * 2 ** 32 + parseInt(low!, 16);
}

/**
 * Start-up's look at the replica: whether it answers (it must: a wrong HERALD_READ_DATABASE_URL stops start-up
 * rather than failing every list later) and whether it is a standby. Throws the driver's error when it does not.
 */
export async function replicaIsStandby(replica: Db): Promise<boolean> {
  const [row] = await replica.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
  return row!.recovery;
}
