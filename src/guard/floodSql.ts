import type { Queryable } from '../db/db.js';

/** The account's messages to these destinations since `since`, per destination and text. */
export async function floodCounts(
  db: Queryable,
  accountId: number,
  destinations: readonly string[],
  since: Date,
): Promise<{ destination: string; text_hash: string; n: number }[]> {
  return db.query(
    `SELECT destination, text_hash, count(*)::int AS n FROM flood_events
     WHERE account_id = $1 AND destination = ANY($2::text[]) AND sent_at > $3
     GROUP BY destination, text_hash`,
    [accountId, destinations, since],
  );
}

/** Records accepted messages: one statement for a batch. */
export async function floodRecord(
  db: Queryable,
  accountId: number,
  events: readonly { destination: string; textHash: string }[],
  now: Date,
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO flood_events (account_id, destination, text_hash, sent_at)
     SELECT $1, destination, text_hash, $4 FROM unnest($2::text[], $3::text[]) AS e (destination, text_hash)`,
    [accountId, events.map((e) => e.destination), events.map((e) => e.textHash), now],
  );
}

/** Forgets what no sliding hour ending now or later can count. */
export async function floodForget(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query('DELETE FROM flood_events WHERE sent_at <= $1 RETURNING 1', [before]);
  return rows.length;
}
