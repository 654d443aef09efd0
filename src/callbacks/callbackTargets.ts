import type { Queryable } from '../db/db.js';
import { LANES } from './eventSql.js';

/**
 * Callback URLs as targets: one row per account and URL, created on first use and never removed, so a process
 * remembers the ids it has seen and asks the database only for new URLs.
 */
export class CallbackTargets {
  private readonly known = new Map<string, number>();

  async resolve(tx: Queryable, accountId: number, urls: Iterable<string>, now: Date): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const missing: string[] = [];
    for (const url of new Set(urls)) {
      const id = this.known.get(`${accountId}\u0000${url}`);
      if (id === undefined) missing.push(url);
      else result.set(url, id);
    }
    if (missing.length > 0) {
      // A new target gets the cursors of its lanes with it.
      const rows = await tx.query<{ id: number; url: string }>(
        `WITH targets AS (
           INSERT INTO callback_targets (account_id, url, created_at)
           SELECT $1, u, $3 FROM unnest($2::text[]) AS u
           ON CONFLICT (account_id, url) DO UPDATE SET url = excluded.url
           RETURNING id, url
         ),
         cursors AS (
           INSERT INTO callback_cursors (target_id, lane, cursor_txid, cursor_event_id)
           SELECT t.id, lane, '0', 0 FROM targets t, generate_series(0, $4 - 1) AS lane
           ON CONFLICT DO NOTHING
         )
         SELECT id, url FROM targets`,
        [accountId, missing, now, LANES],
      );
      for (const row of rows) {
        this.known.set(`${accountId}\u0000${row.url}`, row.id);
        result.set(row.url, row.id);
      }
    }
    return result;
  }
}
