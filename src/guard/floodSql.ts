import type { Queryable } from '../db/db.js';

/*
 * The statements on flood_recent (guard/ owns it; migration 0048): per account and destination, the times and text
 * hashes of the messages accepted in the sliding hour, oldest first.
 */

/**
 * Appends a batch's messages (per destination, their text hashes in order) to their destinations' recent messages,
 * forgetting those sent at or before `since`, and returns the hashes that were there before the batch, for the
 * destinations that had a row (none: nothing in the hour).
 * One statement for a batch, its rows written (and locked until the transaction ends) in destination order: a batch
 * racing to one of the same destinations waits for this one's commit and then reads the row as it left it, so that
 * the two never pass a limit together; batches to other destinations do not wait.
 */
export async function floodAppend(
  db: Queryable,
  accountId: number,
  batch: ReadonlyMap<string, readonly number[]>,
  since: Date,
  now: Date,
): Promise<Map<string, number[]>> {
  const destinations = [...batch.keys()].sort();
  // Only rows that were there before come back: a destination new to the hour held nothing (a mailing spread over
  // the plan parses no row).
  const rows = await db.query<{ destination: string; texts: number[] }>(
    `WITH appended AS (
     INSERT INTO flood_recent AS f (account_id, destination, sent_at, texts, last_at)
     SELECT $1, b.destination, array_fill($5::timestamptz, ARRAY[cardinality(b.texts::int[])]), b.texts::int[], $5
     FROM unnest($2::text[], $3::text[]) AS b (destination, texts)
     ON CONFLICT (account_id, destination) DO UPDATE SET
       sent_at = ARRAY(SELECT o.s FROM unnest(f.sent_at) WITH ORDINALITY AS o (s, i) WHERE o.s > $4 ORDER BY o.i)
         || excluded.sent_at,
       texts = ARRAY(SELECT o.t FROM unnest(f.sent_at, f.texts) WITH ORDINALITY AS o (s, t, i)
         WHERE o.s > $4 ORDER BY o.i) || excluded.texts,
       last_at = excluded.last_at
     RETURNING f.destination, f.texts, f.xmax <> 0 AS updated
     )
     SELECT destination, texts FROM appended WHERE updated`,
    [accountId, destinations, destinations.map((d) => `{${batch.get(d)!.join(',')}}`), since, now],
  );
  return new Map(rows.map((r) => [r.destination, r.texts.slice(0, r.texts.length - batch.get(r.destination)!.length)]));
}

/**
 * Takes back what {@link floodAppend} appended for messages that were not stored after all (refused by the filter
 * itself or by a later check): each destination's `appended` last entries are replaced by `kept`, the hashes of its
 * stored messages. Only batches with such messages pay for it.
 */
export async function floodTakeBack(
  db: Queryable,
  accountId: number,
  fixes: ReadonlyMap<string, { readonly appended: number; readonly kept: readonly number[] }>,
  now: Date,
): Promise<void> {
  if (fixes.size === 0) return;
  const destinations = [...fixes.keys()].sort();
  await db.query(
    `UPDATE flood_recent AS f SET
       sent_at = f.sent_at[1:cardinality(f.sent_at) - x.appended]
         || array_fill($5::timestamptz, ARRAY[cardinality(x.kept::int[])]),
       texts = f.texts[1:cardinality(f.texts) - x.appended] || x.kept::int[]
     FROM unnest($2::text[], $3::int[], $4::text[]) AS x (destination, appended, kept)
     WHERE f.account_id = $1 AND f.destination = x.destination`,
    [
      accountId,
      destinations,
      destinations.map((d) => fixes.get(d)!.appended),
      destinations.map((d) => `{${fixes.get(d)!.kept.join(',')}}`),
      now,
    ],
  );
}

/** Forgets the destinations no sliding hour ending now or later can count. */
export async function floodForget(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query('DELETE FROM flood_recent WHERE last_at <= $1 RETURNING 1', [before]);
  return rows.length;
}
