import type { Queryable } from '../db/db.js';
import { jsonSlices } from '../db/jsonSlices.js';
import type { SendingMethod, ValidMessage } from '../messages/index.js';
import type { Condition } from './validateCascade.js';

/** The statements on cascades (this capability owns the table). */

export type CascadeState = 'running' | 'done' | 'stopped';

export interface StoredStep {
  readonly message: ValidMessage;
  readonly condition: Condition | null;
  /**
   * Seconds after its creation at which the step gives way to the next one unless the cascade was stopped first
   * (verify/: a code not confirmed in time); a delivery then does not end the cascade. Absent for a client's cascade.
   */
  readonly timeout?: number;
}

export interface CascadeRow {
  account_id: number;
  id: string;
  created_at: Date;
  steps: StoredStep[];
  step_count: number;
  current_step: number;
  state: CascadeState;
  ended_at: Date | null;
  traffic_center_id: number | null;
  sending_method: SendingMethod;
  currency: string;
  /** When the current step times out (its `timeout`), or null. */
  step_timeout_at: Date | null;
  /** No step is created from this instant on (verify/: the code's expiry), or null. */
  steps_until: Date | null;
  /** The dispatch the cascade was created for, or null. */
  dispatch_id: string | null;
}

export interface NewCascade {
  readonly id: string;
  readonly steps: readonly StoredStep[];
  /** When the first step times out, if it has a timeout. */
  readonly stepTimeoutAt?: Date | null;
  readonly stepsUntil?: Date | null;
}

/** Inserts new cascades of one account, each at its first step (in statements of at most 512 KiB of steps). */
export async function cascadeInsertBatch(
  tx: Queryable,
  batch: {
    accountId: number;
    now: Date;
    trafficCenterId: number | null;
    sendingMethod: SendingMethod;
    currency: string;
    cascades: readonly NewCascade[];
    /** The dispatch they are created for. */
    dispatchId?: string;
  },
): Promise<void> {
  const rows = batch.cascades.map((c) => ({
    id: c.id,
    steps: c.steps,
    step_timeout_at: c.stepTimeoutAt ?? null,
    steps_until: c.stepsUntil ?? null,
  }));
  // One JSON array a statement, not typed arrays (db/columnArrays.ts): a row is mostly its steps, one document, and
  // cascades are not created at the hot statements' rates.
  for (const slice of jsonSlices(rows)) {
    await tx.query(
      `INSERT INTO cascades (account_id, id, created_at, steps, step_count, traffic_center_id, sending_method, currency,
       step_timeout_at, steps_until, dispatch_id)
     SELECT $1, c.id, $2, c.steps, jsonb_array_length(c.steps), $3, $4, $5, c.step_timeout_at, c.steps_until, $7
     FROM jsonb_to_recordset($6::jsonb)
       AS c(id uuid, steps jsonb, step_timeout_at timestamptz, steps_until timestamptz)`,
      [
        batch.accountId,
        batch.now,
        batch.trafficCenterId,
        batch.sendingMethod,
        batch.currency,
        slice,
        batch.dispatchId ?? null,
      ],
    );
  }
}

/**
 * Locks the running cascades among `keys`, in the global order of cascade locks (account, id), after the messages
 * of their steps and before any balance the caller reserves; returns them.
 */
export async function cascadesLockRunning(
  tx: Queryable,
  keys: readonly { accountId: number; id: string }[],
): Promise<CascadeRow[]> {
  if (keys.length === 0) return [];
  return tx.query<CascadeRow>(
    `SELECT c.* FROM cascades c
     JOIN unnest($1::bigint[], $2::uuid[]) AS k(account_id, id) ON c.account_id = k.account_id AND c.id = k.id
     WHERE c.state = 'running'
     ORDER BY c.account_id, c.id
     FOR UPDATE OF c`,
    [keys.map((k) => k.accountId), keys.map((k) => k.id)],
  );
}

export interface CascadeUpdate {
  readonly accountId: number;
  readonly id: string;
  readonly currentStep: number;
  readonly state: CascadeState;
  /** When the current step times out; null or absent: it does not. */
  readonly stepTimeoutAt?: Date | null;
}

/** Records where locked cascades have come: their current step, when it times out, and their end. */
export async function cascadeUpdateBatch(tx: Queryable, updates: readonly CascadeUpdate[], now: Date): Promise<void> {
  if (updates.length === 0) return;
  await tx.query(
    `UPDATE cascades c SET current_step = u.current_step, state = u.state,
       step_timeout_at = CASE WHEN u.state = 'running' THEN u.step_timeout_at END,
       ended_at = CASE WHEN u.state = 'running' THEN NULL ELSE $2::timestamptz END
     FROM jsonb_to_recordset($1::jsonb)
       AS u(account_id bigint, id uuid, current_step smallint, state text, step_timeout_at timestamptz)
     WHERE c.account_id = u.account_id AND c.id = u.id`,
    [
      JSON.stringify(
        updates.map((u) => ({
          account_id: u.accountId,
          id: u.id,
          current_step: u.currentStep,
          state: u.state,
          step_timeout_at: u.stepTimeoutAt ?? null,
        })),
      ),
      now,
    ],
  );
}

/**
 * Claims up to `limit` running cascades whose current step has timed out at `now`, oldest timeout first, locked
 * until the transaction ends; those another transaction holds (a step's outcome being recorded) are skipped and
 * taken at the next pass.
 */
/** When the next running step times out (the first entry of cascades_step_timeout), or null when none will. */
export async function cascadesNextTimeout(db: Queryable): Promise<Date | null> {
  const [row] = await db.query<{ step_timeout_at: Date }>(
    `SELECT step_timeout_at FROM cascades WHERE state = 'running' AND step_timeout_at IS NOT NULL
     ORDER BY step_timeout_at LIMIT 1`,
  );
  return row?.step_timeout_at ?? null;
}

export async function cascadesClaimTimedOut(tx: Queryable, now: Date, limit: number): Promise<CascadeRow[]> {
  return tx.query<CascadeRow>(
    `SELECT * FROM cascades
     WHERE state = 'running' AND step_timeout_at <= $1
     ORDER BY step_timeout_at, account_id, id
     LIMIT $2
     FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
}

/**
 * Stops an account's running cascades among `ids` (the caller holds their steps' messages); returns those that were
 * running.
 */
export async function cascadesStop(
  tx: Queryable,
  accountId: number,
  ids: readonly string[],
  now: Date,
): Promise<Set<string>> {
  const rows = await tx.query<{ id: string }>(
    `WITH locked AS (
       SELECT id FROM cascades WHERE account_id = $1 AND id = ANY($2::uuid[]) AND state = 'running'
       ORDER BY id FOR UPDATE
     )
     UPDATE cascades c SET state = 'stopped', ended_at = $3, step_timeout_at = NULL FROM locked
     WHERE c.account_id = $1 AND c.id = locked.id
     RETURNING c.id`,
    [accountId, ids, now],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Stops the running cascades of a stopped dispatch: no later step of them will be created. Locks them after the
 * messages of the dispatch the caller stopped, as the delivery writer does (messages, then cascades). Returns how
 * many were running.
 */
export async function cascadesStopOfDispatch(
  tx: Queryable,
  accountId: number,
  dispatchId: string,
  now: Date,
): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    `UPDATE cascades SET state = 'stopped', ended_at = $3
     WHERE account_id = $1 AND dispatch_id = $2 AND state = 'running'
     RETURNING id`,
    [accountId, dispatchId, now],
  );
  return rows.length;
}

/** How many cascades of each of an account's dispatches still run (a later step may still come). */
export async function cascadesRunningOfDispatches(
  db: Queryable,
  accountId: number,
  dispatchIds: readonly string[],
): Promise<Map<string, number>> {
  if (dispatchIds.length === 0) return new Map();
  const rows = await db.query<{ dispatch_id: string; n: number }>(
    `SELECT dispatch_id, count(*)::int AS n FROM cascades
     WHERE account_id = $1 AND dispatch_id = ANY($2::uuid[]) AND state = 'running'
     GROUP BY dispatch_id`,
    [accountId, dispatchIds],
  );
  return new Map(rows.map((r) => [r.dispatch_id, r.n]));
}

export async function cascadeGet(db: Queryable, accountId: number, id: string): Promise<CascadeRow | undefined> {
  const [row] = await db.query<CascadeRow>('SELECT * FROM cascades WHERE account_id = $1 AND id = $2', [accountId, id]);
  return row;
}

/** Deletes cascades that ended before `before` (the retention): up to `limit`; returns how many. */
export async function cascadesDeleteEnded(db: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `DELETE FROM cascades c USING (
       SELECT account_id, id FROM cascades WHERE ended_at IS NOT NULL AND ended_at < $1 ORDER BY ended_at LIMIT $2
     ) old
     WHERE c.account_id = old.account_id AND c.id = old.id
     RETURNING c.id`,
    [before, limit],
  );
  return rows.length;
}
