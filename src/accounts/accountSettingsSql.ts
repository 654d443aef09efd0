import type { Db, Queryable } from '../db/db.js';
import { isoUtc } from '../util/time.js';
import type { SettingsAuditJson } from './accountSchemas.js';
import { herald } from '../errors/catalogue.js';
import { effectiveGuard, type GuardSettings, type GuardSide, loosenedSetting } from '../shared/guardSettings.js';

/** A change of one side's settings: absent fields keep their value (see accountGuardChange for null). */
export type GuardChanges = { [K in keyof GuardSettings]?: GuardSettings[K] | null };

/** Whose settings: the operator's, or the client's narrowing of them. */
export type SettingsSide = 'operator' | 'client';

/** An account's guard settings: both sides as stored and the effective ones. */
export interface AccountGuard {
  readonly operator: GuardSide;
  readonly client: GuardSide;
  readonly effective: GuardSettings;
}

export interface SettingsAuditRow {
  id: string;
  account_id: number;
  changed_at: Date;
  side: SettingsSide;
  actor: string;
  before: GuardSide;
  after: GuardSide;
}

/** The account's guard settings, or undefined when there is no such account. */
export async function accountGuardGet(db: Queryable, accountId: number): Promise<AccountGuard | undefined> {
  const [row] = await db.query<{ guard_operator: GuardSide; guard_client: GuardSide }>(
    'SELECT guard_operator, guard_client FROM accounts WHERE id = $1',
    [accountId],
  );
  return row && guardOfRow(row);
}

const guardOfRow = (row: { guard_operator: GuardSide; guard_client: GuardSide }): AccountGuard => ({
  operator: row.guard_operator,
  client: row.guard_client,
  effective: effectiveGuard(row.guard_operator, row.guard_client),
});

/** The operator's fields whose null is their default, not a value. */
const RESET_BY_NULL: ReadonlySet<string> = new Set(['consentRequired', 'pumping']);

/**
 * Changes one side's settings (fields absent from `changes` keep their value; a client's null removes its narrowing
 * of that field, an operator's null is the value: no geo rule, flood filter off, no spend limit; or the default for
 * consentRequired and pumping) and records the
 * change in the audit, in one transaction that holds the account's row. A client's change that would loosen the
 * operator's settings throws 403 4030. Undefined when there is no such account.
 */
export async function accountGuardChange(
  db: Db,
  accountId: number,
  side: SettingsSide,
  actor: string,
  changes: GuardChanges,
  now: Date,
): Promise<AccountGuard | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ guard_operator: GuardSide; guard_client: GuardSide }>(
      'SELECT guard_operator, guard_client FROM accounts WHERE id = $1 FOR UPDATE',
      [accountId],
    );
    if (!row) return undefined;
    const before = side === 'operator' ? row.guard_operator : row.guard_client;
    const after: Record<string, unknown> = { ...before, ...changes };
    for (const [key, value] of Object.entries(changes))
      if (value === null && (side === 'client' || RESET_BY_NULL.has(key))) delete after[key];
    if (side === 'client') {
      const loosened = loosenedSetting(row.guard_operator, after);
      if (loosened) throw herald('settingLoosened', { setting: loosened });
    }
    if (JSON.stringify(after) === JSON.stringify(before)) return guardOfRow(row);
    const [updated] = await tx.query<{ guard_operator: GuardSide; guard_client: GuardSide }>(
      `UPDATE accounts SET ${side === 'operator' ? 'guard_operator' : 'guard_client'} = $2, updated_at = $3
       WHERE id = $1 RETURNING guard_operator, guard_client`,
      [accountId, JSON.stringify(after), now],
    );
    await tx.query(
      `INSERT INTO account_settings_audit (account_id, changed_at, side, actor, before, after)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [accountId, now, side, actor, JSON.stringify(before), JSON.stringify(after)],
    );
    return guardOfRow(updated!);
  });
}

/** The account's audit of settings, newest first, a page at a time. */
export async function accountSettingsAuditList(
  db: Queryable,
  accountId: number,
  limit: number,
  offset: number,
): Promise<{ rows: SettingsAuditRow[]; total: number }> {
  const rows = await db.query<SettingsAuditRow>(
    `SELECT id::text, account_id, changed_at, side, actor, before, after FROM account_settings_audit
     WHERE account_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
    [accountId, limit, offset],
  );
  const [count] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM account_settings_audit WHERE account_id = $1',
    [accountId],
  );
  return { rows, total: count!.n };
}

/** A page of the account's audit as both the client's and the operator's routes answer it. */
export async function accountSettingsAuditPage(
  db: Queryable,
  accountId: number,
  query: { page?: number | undefined; per_page?: number | undefined },
): Promise<{ items: SettingsAuditJson[]; page: number; per_page: number; total: number }> {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 100;
  const { rows, total } = await accountSettingsAuditList(db, accountId, perPage, (page - 1) * perPage);
  return { items: rows.map(settingsAuditToApi), page, per_page: perPage, total };
}

export function settingsAuditToApi(row: SettingsAuditRow): SettingsAuditJson {
  return {
    id: row.id,
    changedAt: isoUtc(row.changed_at)!,
    side: row.side,
    actor: row.actor,
    before: row.before,
    after: row.after,
  };
}
