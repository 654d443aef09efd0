import type { Queryable } from '../db/db.js';
import { STATUS_UPDATE, STATUS_UPDATE_PARAMS } from './deliverySql.js';
import { FROM_STATUSES } from './statuses.js';

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
  cn: string;
  ci: string;
  account_id: number;
  message_id: string;
  parts: number;
  st: ReceiptState;
  at: Date;
  ec: number | null;
  /** For single-part messages: whether the receipt moved the message's status. */
  moved: boolean;
}

/**
 * Applies receipts in one statement: each finds its submission; a single-part message moves to the receipt's
 * status where the status rules allow (the common case, done here); receipts of multi-part messages are returned
 * for part counting; receipts whose submission is not recorded yet are kept as orphans.
 */
export async function receiptsApply(
  db: Queryable,
  receipts: readonly CarrierReceipt[],
): Promise<{ matched: MatchedReceipt[]; orphaned: number }> {
  const rows = receipts.map((r) => ({
    cn: r.connectorId,
    ci: r.carrierId,
    st: r.state,
    at: r.at.toISOString(),
    ec: r.errorCode,
    fr: FROM_STATUSES[r.state],
  }));
  const result = await db.query<MatchedReceipt & { orphaned: number }>(
    `WITH input AS (
       SELECT * FROM json_to_recordset($1::json) AS i(cn text, ci text, st text, at timestamptz, ec integer, fr text[])
     ),
     k AS (
       SELECT i.cn, i.ci, i.st, i.at, i.ec, i.fr, s.account_id, s.message_id, s.parts FROM input i
       JOIN submissions s ON s.connector_id = i.cn AND s.carrier_id = i.ci
     ),
     r AS (SELECT account_id AS a, message_id AS id, st, at, ec, NULL::text AS dt, fr FROM k WHERE parts = 1),
     moved AS (${STATUS_UPDATE} RETURNING m.id),
     orphans AS (
       INSERT INTO orphan_receipts (connector_id, carrier_id, state, error_code, received_at)
       SELECT i.cn, i.ci, i.st, i.ec, i.at FROM input i
       WHERE NOT EXISTS (SELECT 1 FROM k WHERE k.cn = i.cn AND k.ci = i.ci)
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     SELECT k.cn, k.ci, k.account_id, k.message_id, k.parts, k.st, k.at, k.ec, (moved.id IS NOT NULL) AS moved,
            NULL::bigint AS orphaned
     FROM k LEFT JOIN moved ON moved.id = k.message_id
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM orphans)`,
    [JSON.stringify(rows), ...STATUS_UPDATE_PARAMS],
  );
  const last = result.pop();
  return { matched: result, orphaned: Number(last?.orphaned ?? 0) };
}

/**
 * Records receipts on the parts of multi-part messages and returns those that changed a part's state (set once,
 * except delivered -> read): the message status follows from all its parts.
 */
export async function submissionSetPartStates(db: Queryable, receipts: readonly MatchedReceipt[]): Promise<MatchedReceipt[]> {
  if (receipts.length === 0) return [];
  const changed = await db.query<{ cn: string; ci: string }>(
    `WITH r AS (SELECT * FROM json_to_recordset($1::json) AS r(cn text, ci text, st text, at timestamptz))
     UPDATE submissions s SET state = r.st, state_at = r.at
     FROM r
     WHERE s.connector_id = r.cn AND s.carrier_id = r.ci
       AND (s.state IS NULL OR (s.state = 'delivered' AND r.st = 'read'))
     RETURNING s.connector_id AS cn, s.carrier_id AS ci`,
    [JSON.stringify(receipts.map((r) => ({ cn: r.cn, ci: r.ci, st: r.st, at: new Date(r.at).toISOString() })))],
  );
  const keys = new Set(changed.map((c) => `${c.cn}\u0000${c.ci}`));
  return receipts.filter((r) => keys.has(`${r.cn}\u0000${r.ci}`));
}

/** Counts newly delivered parts of multi-part messages and returns the messages whose every part is delivered. */
export async function messageCountDeliveredParts(
  db: Queryable,
  counts: readonly { accountId: number; id: string; parts: number }[],
): Promise<{ account_id: number; id: string }[]> {
  if (counts.length === 0) return [];
  const rows = await db.query<{ account_id: number; id: string; complete: boolean }>(
    `WITH r AS (SELECT * FROM json_to_recordset($1::json) AS r(a bigint, id uuid, n integer))
     UPDATE messages m SET parts_delivered = m.parts_delivered + r.n
     FROM r WHERE m.account_id = r.a AND m.id = r.id
     RETURNING m.account_id, m.id, m.parts_delivered >= m.total_parts AS complete`,
    [JSON.stringify(counts.map((c) => ({ a: c.accountId, id: c.id, n: c.parts })))],
  );
  return rows.filter((r) => r.complete);
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
