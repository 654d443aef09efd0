import type { Db } from '../../src/db/db.js';
import { messageApplyOrphanReceipts } from '../../src/messages/index.js';
import type { SmscSimulator } from '../../src/simulators/smscSimulator.js';
import { waitFor } from './waitFor.js';
import { messageRows } from './messageRows.js';

/** How many times the SMSC saw each text starting with `prefix` (an empty prefix counts every text). */
export function submissionsByText(smsc: SmscSimulator, prefix: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of smsc.submissions) if (s.text.startsWith(prefix)) counts.set(s.text, (counts.get(s.text) ?? 0) + 1);
  return counts;
}

/** How many messages are in each status: those of one account, or those with the given ids. */
export async function messageStatusCounts(
  db: Db,
  where: { accountId: number } | { ids: readonly string[] },
): Promise<Record<string, number>> {
  const rows =
    'accountId' in where
      ? await db.query<{ status: string; n: number }>(
          `SELECT status, count(*) AS n FROM ${messageRows()} WHERE account_id = $1 GROUP BY status`,
          [where.accountId],
        )
      : await db.query<{ status: string; n: number }>(
          `SELECT status, count(*) AS n FROM ${messageRows()} WHERE id = ANY($1::uuid[]) GROUP BY status`,
          [[...where.ids]],
        );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Waits until exactly `count` messages of the account are delivered; on timeout says how many are in each status (and
 * with which error codes).
 */
export async function waitAllDelivered(db: Db, accountId: number, count: number, timeoutMs: number): Promise<void> {
  await waitFor(async () => ((await messageStatusCounts(db, { accountId })).delivered ?? 0) === count, {
    timeoutMs,
    describe: async () => {
      const errors = await db.query<{ status: string; error_code: number; n: number }>(
        `SELECT status, error_code, count(*) AS n FROM ${messageRows()}
         WHERE account_id = $1 AND error_code IS NOT NULL GROUP BY 1, 2`,
        [accountId],
      );
      const statuses = JSON.stringify(await messageStatusCounts(db, { accountId }));
      const codes = errors.length ? `; error codes: ${JSON.stringify(errors)}` : '';
      return `${statuses} of ${count} expected delivered${codes}`;
    },
  });
}

/**
 * Applies the receipts kept as orphans whose submission is recorded now. A part's receipt may come before its
 * submission is written (a simulator answering within milliseconds) and wait as an orphan; the job that matches those
 * again does not run in tests started without jobs: a wait for a multi-part message's outcome runs it here.
 */
export async function applyOrphanReceipts(db: Db): Promise<void> {
  await db.transaction((tx) => messageApplyOrphanReceipts(tx, new Date(0)));
}
