import type { Queryable } from '../db/db.js';

/** A carrier's report on one submitted part. */
export interface CarrierReceipt {
  readonly connectorId: string;
  readonly carrierId: string;
  readonly state: ReceiptState;
  readonly at: Date;
  readonly errorCode: number | null;
}
export type ReceiptState = 'delivered' | 'undelivered' | 'unsent' | 'read';

export interface MatchedReceipt {
  account_id: number;
  message_id: string;
  parts: number;
  st: ReceiptState;
  at: Date;
  ec: number | null;
}

/**
 * Records receipts on their submitted parts and returns those that changed a part's state (a part's state is
 * set once, except delivered -> read). Receipts whose submission is not recorded yet are kept as orphans.
 */
export async function submissionApplyReceipts(
  db: Queryable,
  receipts: readonly CarrierReceipt[],
): Promise<{ matched: MatchedReceipt[]; orphaned: number }> {
  const rows = receipts.map((r) => ({ cn: r.connectorId, ci: r.carrierId, st: r.state, at: r.at.toISOString(), ec: r.errorCode }));
  const matched = await db.query<MatchedReceipt & { orphaned: number }>(
    `WITH r AS (
       SELECT * FROM json_to_recordset($1::json) AS r(cn text, ci text, st text, at timestamptz, ec integer)
     ),
     known AS (
       SELECT r.cn, r.ci, r.st, r.at, r.ec FROM r
       JOIN submissions s ON s.connector_id = r.cn AND s.carrier_id = r.ci
     ),
     parts AS (
       UPDATE submissions s SET state = k.st, state_at = k.at
       FROM known k
       WHERE s.connector_id = k.cn AND s.carrier_id = k.ci
         AND (s.state IS NULL OR (s.state = 'delivered' AND k.st = 'read'))
       RETURNING s.account_id, s.message_id, s.parts, k.st, k.at, k.ec
     ),
     orphans AS (
       INSERT INTO orphan_receipts (connector_id, carrier_id, state, error_code, received_at)
       SELECT r.cn, r.ci, r.st, r.ec, r.at FROM r
       WHERE NOT EXISTS (SELECT 1 FROM known k WHERE k.cn = r.cn AND k.ci = r.ci)
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     SELECT p.account_id, p.message_id, p.parts, p.st, p.at, p.ec, (SELECT count(*) FROM orphans) AS orphaned
     FROM parts p
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM orphans)`,
    [JSON.stringify(rows)],
  );
  const orphaned = matched.length > 0 ? Number(matched[matched.length - 1]!.orphaned) : 0;
  return { matched: matched.filter((m) => m.message_id !== null), orphaned };
}

/**
 * Counts newly delivered parts of multi-part messages and returns the messages whose every part is now delivered.
 */
export async function messageCountDeliveredParts(
  db: Queryable,
  counts: readonly { accountId: number; id: string; parts: number }[],
): Promise<{ account_id: number; id: string }[]> {
  if (counts.length === 0) return [];
  return db.query(
    `WITH r AS (SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid, n integer))
     UPDATE messages m SET parts_delivered = m.parts_delivered + r.n
     FROM r WHERE m.account_id = r.a AND m.id = r.id
     RETURNING m.account_id, m.id, m.parts_delivered >= m.total_parts AS complete`,
    [JSON.stringify(counts.map((c) => ({ a: c.accountId, id: c.id, n: c.parts })))],
  ).then((rows) => (rows as { account_id: number; id: string; complete: boolean }[]).filter((r) => r.complete));
}

/** Takes the orphan receipts whose submission has been recorded since; drops those older than `expiredBefore`. */
export async function orphanReceiptsTakeMatched(db: Queryable, expiredBefore: Date): Promise<CarrierReceipt[]> {
  await db.query('DELETE FROM orphan_receipts WHERE received_at < $1', [expiredBefore]);
  const rows = await db.query<{ connector_id: string; carrier_id: string; state: ReceiptState; error_code: number | null; received_at: Date }>(
    `DELETE FROM orphan_receipts o USING submissions s
     WHERE o.connector_id = s.connector_id AND o.carrier_id = s.carrier_id
     RETURNING o.connector_id, o.carrier_id, o.state, o.error_code, o.received_at`,
  );
  return rows.map((r) => ({ connectorId: r.connector_id, carrierId: r.carrier_id, state: r.state, at: r.received_at, errorCode: r.error_code }));
}
