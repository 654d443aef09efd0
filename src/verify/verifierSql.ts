import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';

/** The statements on verifiers (this capability owns the table). */

export interface WorkflowStep {
  readonly channelType: Channel;
  readonly senderName: string;
  /** Seconds the step waits for a confirmation before the next one is sent. */
  readonly timeout: number;
}

export interface VerifierRow {
  account_id: number;
  gateway_id: string;
  name: string;
  brand: string;
  code_length: number;
  code_ttl: number;
  max_checks: number;
  workflow: WorkflowStep[];
  created_at: Date;
  updated_at: Date;
}

/** A verifier's settings, as created or updated. */
export interface VerifierSettings {
  readonly name: string;
  readonly brand: string;
  readonly codeLength: number;
  readonly codeTtl: number;
  readonly maxChecks: number;
  readonly workflow: readonly WorkflowStep[];
}

export async function verifierInsert(
  db: Queryable,
  accountId: number,
  gatewayId: string,
  settings: VerifierSettings,
  now: Date,
): Promise<VerifierRow> {
  const [row] = await db.query<VerifierRow>(
    `INSERT INTO verifiers (account_id, gateway_id, name, brand, code_length, code_ttl, max_checks, workflow,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     RETURNING *`,
    [accountId, gatewayId, ...settingsParams(settings), now],
  );
  return row!;
}

export async function verifierGet(
  db: Queryable,
  accountId: number,
  gatewayId: string,
): Promise<VerifierRow | undefined> {
  const [row] = await db.query<VerifierRow>('SELECT * FROM verifiers WHERE account_id = $1 AND gateway_id = $2', [
    accountId,
    gatewayId,
  ]);
  return row;
}

/** The account's verifiers, oldest first. */
export async function verifierList(db: Queryable, accountId: number): Promise<VerifierRow[]> {
  return db.query<VerifierRow>('SELECT * FROM verifiers WHERE account_id = $1 ORDER BY created_at, gateway_id', [
    accountId,
  ]);
}

export async function verifierCount(db: Queryable, accountId: number): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM verifiers WHERE account_id = $1', [
    accountId,
  ]);
  return row!.n;
}

/** Replaces a verifier's settings; undefined when the account has no such verifier. */
export async function verifierUpdate(
  db: Queryable,
  accountId: number,
  gatewayId: string,
  settings: VerifierSettings,
  now: Date,
): Promise<VerifierRow | undefined> {
  const [row] = await db.query<VerifierRow>(
    `UPDATE verifiers SET name = $3, brand = $4, code_length = $5, code_ttl = $6, max_checks = $7, workflow = $8,
       updated_at = $9
     WHERE account_id = $1 AND gateway_id = $2
     RETURNING *`,
    [accountId, gatewayId, ...settingsParams(settings), now],
  );
  return row;
}

/** Deletes a verifier; false when the account has no such verifier. Codes already sent stay checkable. */
export async function verifierDelete(db: Queryable, accountId: number, gatewayId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM verifiers WHERE account_id = $1 AND gateway_id = $2 RETURNING gateway_id', [
    accountId,
    gatewayId,
  ]);
  return rows.length > 0;
}

/** A verifier's settings in the column order of its insert and update ($3-$8). */
function settingsParams(settings: VerifierSettings): unknown[] {
  const { name, brand, codeLength, codeTtl, maxChecks, workflow } = settings;
  return [name, brand, codeLength, codeTtl, maxChecks, JSON.stringify(workflow)];
}
