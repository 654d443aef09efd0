import type { ReadStatus, Status } from './statuses.js';

/**
 * A step of a cascade that reached an outcome its cascade may move on or end at: a final status, or a read status.
 * (cascades/ decides what it means for the cascade, in the transaction that recorded it.)
 */
export interface StepOutcome {
  readonly accountId: number;
  readonly id: string;
  readonly cascadeId: string;
  readonly cascadeStep: number;
  readonly status: Status;
  readonly readStatus: ReadStatus | null;
  readonly at: Date;
}

export interface StepOutcomeRow {
  account_id: number;
  cascade_id: string;
  cascade_step: number;
  status: Status;
  read_status: ReadStatus | null;
  at: string;
}

/** A moved row (`mv`, with cascade and status columns) as a {@link StepOutcomeRow}. */
export const STEP_OUTCOME_JSON = `json_build_object('account_id', mv.account_id, 'cascade_id', mv.cascade_id,
  'cascade_step', mv.cascade_step, 'status', mv.status, 'read_status', mv.read_status, 'at', mv.at)`;
export const STEP_ENDED = `mv.cascade_id IS NOT NULL AND mv.status IN ('delivered', 'undelivered', 'unsent')`;

export const stepOutcomeOf = (id: string, row: StepOutcomeRow): StepOutcome => ({
  accountId: Number(row.account_id),
  id,
  cascadeId: row.cascade_id,
  cascadeStep: Number(row.cascade_step),
  status: row.status,
  readStatus: row.read_status,
  at: new Date(row.at),
});
