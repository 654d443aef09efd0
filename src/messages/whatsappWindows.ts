import type { Queryable } from '../db/db.js';

/** A subscriber's message opens a window for free-form WHATSAPP messages for this long (spec 2.2, 8). */
export const WHATSAPP_WINDOW_MS = 24 * 3600_000;

/** Opens (or opens again) the window of (account, sender name, subscriber) at `now`. */
export async function whatsappWindowOpen(
  db: Queryable,
  accountId: number,
  senderName: string,
  subscriber: string,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO whatsapp_windows (account_id, sender_name, subscriber, opened_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, sender_name, subscriber) DO UPDATE SET opened_at = excluded.opened_at,
       expires_at = excluded.expires_at`,
    [accountId, senderName, subscriber, now, new Date(now.getTime() + WHATSAPP_WINDOW_MS)],
  );
}

/** The senders and subscribers of a batch whose WhatsApp window is open now, as `sender\u0000subscriber` keys. */
export async function whatsappWindowsOpenOf(
  db: Queryable,
  accountId: number,
  pairs: readonly [string, string][],
  now: Date,
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db.query<{ sender_name: string; subscriber: string }>(
    `SELECT w.sender_name, w.subscriber FROM whatsapp_windows w
     JOIN unnest($2::text[], $3::text[]) AS p(s, d) ON w.sender_name = p.s AND w.subscriber = p.d
     WHERE w.account_id = $1 AND w.expires_at > $4`,
    [accountId, pairs.map((p) => p[0]), pairs.map((p) => p[1]), now],
  );
  return new Set(rows.map((r) => `${r.sender_name}\u0000${r.subscriber}`));
}
