import { lockAccount } from '../db/accountLocks.js';
import type { Queryable } from '../db/db.js';
import { DAY_MS } from '../util/time.js';

/**
 * Callback URLs as targets: one row per account and URL, created on first use, so a process remembers the ids it
 * has seen and asks the database only for new URLs. An account may create at most `perDay` new URLs a UTC day
 * (0: no limit): each costs a row, and forming callbacks for ten thousand of them once cost a core.
 */
export class CallbackTargets {
  private readonly known = new Map<string, number>();

  constructor(private readonly perDay = 0) {}

  /**
   * The target ids of the URLs, created where missing. URLs over the account's daily limit of new URLs are left
   * out of the answer (in the order given: the first ones are created); `limited: false` lifts the limit (URLs
   * the operator's rules name).
   */
  async resolve(
    tx: Queryable,
    accountId: number,
    urls: Iterable<string>,
    now: Date,
    options: { limited?: boolean } = {},
  ): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const missing: string[] = [];
    for (const url of new Set(urls)) {
      const id = this.known.get(`${accountId}\u0000${url}`);
      if (id === undefined) missing.push(url);
      else result.set(url, id);
    }
    if (missing.length === 0) return result;
    let allowed = missing;
    if (this.perDay > 0 && options.limited !== false) {
      // Until the transaction ends: batches of one account that race would otherwise each count the URLs created
      // before any of them committed, and together pass the limit. Taken before any target row is touched, so that
      // a transaction waiting for it holds no row another one needs.
      await lockAccount(tx, 'callbackUrls', accountId);
      const [row] = await tx.query<{ existing: string[]; today: number }>(
        `SELECT coalesce((SELECT array_agg(url) FROM callback_targets WHERE account_id = $1 AND url = ANY($2::text[])), '{}') AS existing,
           (SELECT count(*)::int FROM callback_targets WHERE account_id = $1 AND created_at >= $3) AS today`,
        [accountId, missing, new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS)],
      );
      const existing = new Set(row!.existing);
      let room = Math.max(0, this.perDay - row!.today);
      allowed = missing.filter((url) => existing.has(url) || room-- > 0);
    }
    if (allowed.length === 0) return result;
    // Its lanes get their cursors when their first events are formed into deliveries (callbacks/laneSql.ts).
    const rows = await tx.query<{ id: number; url: string }>(
      `INSERT INTO callback_targets (account_id, url, created_at)
       SELECT $1, u, $3 FROM unnest($2::text[]) AS u
       ORDER BY u
       ON CONFLICT (account_id, url) DO UPDATE SET url = excluded.url
       RETURNING id, url`,
      [accountId, allowed, now],
    );
    for (const row of rows) {
      this.known.set(`${accountId}\u0000${row.url}`, row.id);
      result.set(row.url, row.id);
    }
    return result;
  }
}
