import type { Queryable } from '../db/db.js';

/** An account's opt-out settings as stored (opt_out_settings). */
export interface OptOutSettingRow {
  readonly keywords: string[];
  readonly reply: string | null;
}

/** The account's opt-out settings, or undefined when it never set them (the defaults hold). */
export async function optOutSettingGet(db: Queryable, accountId: number): Promise<OptOutSettingRow | undefined> {
  const [row] = await db.query<OptOutSettingRow>('SELECT keywords, reply FROM opt_out_settings WHERE account_id = $1', [
    accountId,
  ]);
  return row;
}

/** Replaces the account's opt-out settings. */
export async function optOutSettingPut(
  db: Queryable,
  accountId: number,
  settings: OptOutSettingRow,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO opt_out_settings (account_id, keywords, reply, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) DO UPDATE SET keywords = $2, reply = $3, updated_at = $4`,
    [accountId, settings.keywords, settings.reply, now],
  );
}
