import type { Queryable } from '../db/db.js';
import type { ConnectorState } from './connector.js';

export interface ConnectorStatusRow {
  process: string;
  connector_id: string;
  channel: string;
  type: string;
  available: boolean;
  state: string;
  in_flight: number;
  window_size: number;
  mps: number;
  submitted: number;
  last_error: string | null;
  throttled: number;
  paused_until: Date | null;
  last_error_at: Date | null;
  queued: number;
  profile: string | null;
  balance: string | null;
  /** Messages per second between the last two reports; null until there are two, a time apart. */
  submit_rate: number | null;
  updated_at: Date;
}

/**
 * Records the state of a process's connectors, one statement for all of them. The report it replaces becomes the
 * previous one (its `submitted` and time), from which the submission rate is computed.
 */
export async function connectorStatusUpsert(
  db: Queryable,
  processName: string,
  states: readonly ConnectorState[],
  now: Date,
): Promise<void> {
  if (states.length === 0) return;
  await db.query(
    `INSERT INTO connector_status (process, connector_id, channel, type, available, state, in_flight, window_size, mps,
       submitted, last_error, throttled, paused_until, last_error_at, queued, profile, balance, updated_at)
     SELECT $1, c.id, c.channel, c.type, c.available, c.state, c.in_flight, c.window_size, c.mps, c.submitted,
       c.last_error, c.throttled, c.paused_until, c.last_error_at, c.queued, c.profile, c.balance, $2
     FROM unnest($3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::int[], $9::int[], $10::float8[],
       $11::bigint[], $12::text[], $13::bigint[], $14::timestamptz[], $15::timestamptz[], $16::int[], $17::text[],
       $18::numeric[])
       AS c(id, channel, type, available, state, in_flight, window_size, mps, submitted, last_error, throttled,
         paused_until, last_error_at, queued, profile, balance)
     ON CONFLICT (process, connector_id) DO UPDATE SET
       channel = excluded.channel, type = excluded.type, available = excluded.available, state = excluded.state,
       in_flight = excluded.in_flight, window_size = excluded.window_size, mps = excluded.mps,
       submitted = excluded.submitted, last_error = excluded.last_error, throttled = excluded.throttled,
       paused_until = excluded.paused_until, last_error_at = excluded.last_error_at, queued = excluded.queued,
       profile = excluded.profile, balance = excluded.balance,
       previous_submitted = connector_status.submitted, previous_at = connector_status.updated_at,
       updated_at = excluded.updated_at`,
    [
      processName,
      now,
      states.map((s) => s.id),
      states.map((s) => s.channel),
      states.map((s) => s.type),
      states.map((s) => s.available),
      states.map((s) => s.state),
      states.map((s) => s.inFlight),
      states.map((s) => s.window),
      states.map((s) => s.mps),
      states.map((s) => s.submitted),
      states.map((s) => s.lastError),
      states.map((s) => s.throttled ?? 0),
      states.map((s) => s.pausedUntil ?? null),
      states.map((s) => s.lastErrorAt ?? null),
      states.map((s) => s.queued ?? 0),
      states.map((s) => s.profile ?? null),
      states.map((s) => s.balance ?? null),
    ],
  );
}

/**
 * Deletes the rows of a process (it stops), and of processes that have not reported since `silentSince` (they died).
 */
export async function connectorStatusDelete(
  db: Queryable,
  processName: string | null,
  silentSince: Date | null,
): Promise<void> {
  await db.query('DELETE FROM connector_status WHERE process = $1 OR updated_at < $2', [processName, silentSince]);
}

/** Every process's connectors, by connector then process. */
export async function connectorStatusList(db: Queryable): Promise<ConnectorStatusRow[]> {
  return db.query<ConnectorStatusRow>(
    `SELECT process, connector_id, channel, type, available, state, in_flight, window_size, mps, submitted,
       last_error, throttled, paused_until, last_error_at, queued, profile, balance::text, updated_at,
       CASE WHEN previous_at IS NOT NULL AND updated_at > previous_at AND submitted >= previous_submitted
         THEN (submitted - previous_submitted) / extract(epoch FROM updated_at - previous_at)::float8 END AS submit_rate
     FROM connector_status ORDER BY connector_id, process`,
  );
}
