import type { CarrierReceipt, ReceiptState } from '../shared/receipts.js';
import { type ArrayColumn, columnValues, unnestSelect } from '../db/columnArrays.js';
import type { Queryable } from '../db/db.js';
import type { Channel } from '../shared/channels.js';
import { messagesJoin } from './messageSql.js';
import { isoMs } from '../util/time.js';

/*
 * The parts carriers accepted (`submissions`, written by messageApplyTransitions with the `sent` it records) and the
 * receipts that came before their part was recorded (`orphan_receipts`). Both belong to messages/: receipts find
 * their message through them.
 *
 * Statements reach a batch's parts one probe of the key a part: a batch joined with submissions (or its parts checked
 * with EXISTS, which the planner turns into a join) was planned as a hash of the whole table wherever the planner took
 * it for small (a new or small installation's: under some 10,000-50,000 rows), built again for every batch.
 */

/**
 * The submission of each row of `keys` (an alias with connector_id and carrier_id) as `s`, its `columns`, locked when
 * `lock`: a lateral probe, kept a loop by its LIMIT.
 */
function submissionOf(keys: string, columns: string, lock = false): string {
  return `CROSS JOIN LATERAL (
         SELECT ${columns} FROM submissions s
         WHERE s.connector_id = ${keys}.connector_id AND s.carrier_id = ${keys}.carrier_id
         LIMIT 1${lock ? ' FOR UPDATE' : ''}
       ) s`;
}

/** Whether the part the row `keys` names (an alias with connector_id and carrier_id) is recorded: a scalar probe. */
export const submissionRecorded = (keys: string): string =>
  `(SELECT true FROM submissions s WHERE s.connector_id = ${keys}.connector_id AND s.carrier_id = ${keys}.carrier_id)
           IS NOT NULL`;

/** A receipt with the submission it reports on. */
export interface MatchedReceipt {
  readonly receipt: CarrierReceipt;
  readonly accountId: number;
  readonly messageId: string;
  readonly parts: number;
}

/** A receipt and its place in the batch (the statements answer by it). */
interface NumberedReceipt {
  readonly receipt: CarrierReceipt;
  readonly i: number;
}

/** Receipts as the statements read them: one typed array a column (db/columnArrays.ts). */
const PART_STATE_COLUMNS: readonly ArrayColumn<NumberedReceipt>[] = [
  { name: 'i', type: 'integer' },
  { name: 'connector_id', type: 'text', value: (r) => r.receipt.connectorId },
  { name: 'carrier_id', type: 'text', value: (r) => r.receipt.carrierId },
  { name: 'state', type: 'text', value: (r) => r.receipt.state },
  { name: 'received_at', type: 'timestamptz', value: (r) => isoMs(r.receipt.at) },
];
const RECEIPT_COLUMNS: readonly ArrayColumn<NumberedReceipt>[] = [
  ...PART_STATE_COLUMNS,
  { name: 'error_code', type: 'integer', value: (r) => r.receipt.errorCode },
];
const PART_STATES_SELECT = unnestSelect(PART_STATE_COLUMNS, 1, 'r');
const RECEIPTS_SELECT = unnestSelect(RECEIPT_COLUMNS, 1, 'i');

/**
 * Finds the submissions of receipts, and keeps those whose submission is not recorded yet as orphans, to be
 * matched again later (another process submitted the message a moment ago).
 */
export async function submissionMatchReceipts(
  db: Queryable,
  receipts: readonly CarrierReceipt[],
): Promise<{ matched: MatchedReceipt[]; orphaned: number }> {
  const rows = await db.query<{
    i: number;
    account_id: number | null;
    message_id: string | null;
    parts: number | null;
  }>(
    `WITH input AS (${RECEIPTS_SELECT}),
     found AS (
       SELECT i.i, s.account_id, s.message_id, s.parts FROM input i
       ${submissionOf('i', 's.account_id, s.message_id, s.parts')}
     ),
     orphans AS (
       INSERT INTO orphan_receipts (connector_id, carrier_id, state, error_code, received_at)
       SELECT i.connector_id, i.carrier_id, i.state, i.error_code, i.received_at FROM input i
       WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.i = i.i)
       ON CONFLICT DO NOTHING
     )
     SELECT i, account_id, message_id, parts FROM found`,
    columnValues(
      RECEIPT_COLUMNS,
      receipts.map((receipt, i) => ({ receipt, i })),
    ),
  );
  const matched = rows.map((row) => ({
    receipt: receipts[row.i]!,
    accountId: row.account_id!,
    messageId: row.message_id!,
    parts: row.parts!,
  }));
  return { matched, orphaned: receipts.length - matched.length };
}

/**
 * Records receipts on the parts of multi-part messages and returns those that changed a part's state (set once,
 * except delivered -> read): the message status follows from all its parts. Parts are locked in key order.
 */
export async function submissionSetPartStates(
  db: Queryable,
  receipts: readonly MatchedReceipt[],
): Promise<MatchedReceipt[]> {
  if (receipts.length === 0) return [];
  const changed = await db.query<{ i: number }>(
    `WITH r AS (${PART_STATES_SELECT}),
     -- The keys in order, each part locked as its probe finds it.
     locked AS (
       SELECT s.connector_id, s.carrier_id FROM (SELECT connector_id, carrier_id FROM r ORDER BY 1, 2) k
       ${submissionOf('k', 's.connector_id, s.carrier_id', true)}
     )
     UPDATE submissions s SET state = r.state, state_at = r.received_at
     FROM r JOIN locked l ON l.connector_id = r.connector_id AND l.carrier_id = r.carrier_id
     WHERE s.connector_id = r.connector_id AND s.carrier_id = r.carrier_id
       AND (s.state IS NULL OR (s.state = 'delivered' AND r.state = 'read'))
     RETURNING r.i`,
    columnValues(
      PART_STATE_COLUMNS,
      receipts.map(({ receipt }, i) => ({ receipt, i })),
    ),
  );
  return changed.map((row) => receipts[row.i]!);
}

/** Whether any receipt waits for its submission. */
export async function orphanReceiptsAny(db: Queryable): Promise<boolean> {
  return (await db.query('SELECT 1 FROM orphan_receipts LIMIT 1')).length > 0;
}

/** Takes the orphan receipts whose submission has been recorded since; drops those older than `expiredBefore`. */
export async function orphanReceiptsTakeMatched(db: Queryable, expiredBefore: Date): Promise<CarrierReceipt[]> {
  await db.query('DELETE FROM orphan_receipts WHERE received_at < $1', [expiredBefore]);
  const rows = await db.query<{
    connector_id: string;
    carrier_id: string;
    state: ReceiptState;
    error_code: number | null;
    received_at: Date;
  }>(
    `DELETE FROM orphan_receipts o USING submissions s
     WHERE o.connector_id = s.connector_id AND o.carrier_id = s.carrier_id
     RETURNING o.connector_id, o.carrier_id, o.state, o.error_code, o.received_at`,
  );
  return rows.map((r) => ({
    connectorId: r.connector_id,
    carrierId: r.carrier_id,
    state: r.state,
    at: r.received_at,
    errorCode: r.error_code,
  }));
}

/** A provider's price of a submitted part. */
interface PartPrice {
  readonly connectorId: string;
  readonly carrierId: string;
  readonly price: number;
}

const PRICE_COLUMNS: readonly ArrayColumn<PartPrice>[] = [
  { name: 'connector_id', type: 'text', value: (p) => p.connectorId },
  { name: 'carrier_id', type: 'text', value: (p) => p.carrierId },
  { name: 'price', type: 'numeric' },
];
const PRICES_SELECT = unnestSelect(PRICE_COLUMNS, 1, 'p');

/** Records the providers' prices of submitted messages (the buy price) from their status reports. */
export async function submissionRecordPrices(db: Queryable, prices: readonly PartPrice[]): Promise<void> {
  if (prices.length === 0) return;
  await db.query(
    `UPDATE submissions s SET buy_price = p.price
     FROM (${PRICES_SELECT}) p
     WHERE s.connector_id = p.connector_id AND s.carrier_id = p.carrier_id AND s.buy_price IS DISTINCT FROM p.price`,
    columnValues(PRICE_COLUMNS, prices),
  );
}

/**
 * Claims up to `limit` of a polled connector's submissions that are due to be asked about: their next time moves
 * to `nextAt`, so that another worker does not ask too. Those past their `poll_until` are forgotten instead.
 */
export async function submissionPollsClaim(
  db: Queryable,
  connectorId: string,
  now: Date,
  nextAt: Date,
  limit: number,
): Promise<string[]> {
  await db.query('DELETE FROM submission_polls WHERE connector_id = $1 AND poll_until < $2', [connectorId, now]);
  const rows = await db.query<{ carrier_id: string }>(
    `WITH due AS (
       SELECT carrier_id FROM submission_polls WHERE connector_id = $1 AND next_at <= $2
       ORDER BY next_at LIMIT $4 FOR UPDATE SKIP LOCKED
     )
     UPDATE submission_polls p SET next_at = $3 FROM due
     WHERE p.connector_id = $1 AND p.carrier_id = due.carrier_id
     RETURNING p.carrier_id`,
    [connectorId, now, nextAt, limit],
  );
  return rows.map((r) => r.carrier_id);
}

/** Stops asking about submissions whose status is final. */
export async function submissionPollsDone(db: Queryable, connectorId: string, carrierIds: readonly string[]) {
  if (carrierIds.length === 0) return;
  await db.query('DELETE FROM submission_polls WHERE connector_id = $1 AND carrier_id = ANY($2::text[])', [
    connectorId,
    carrierIds,
  ]);
}

/** When a polled connector's next submission is due to be asked about, if it has any. */
export async function submissionPollsNext(db: Queryable, connectorId: string): Promise<Date | null> {
  const [row] = await db.query<{ next_at: Date | null }>(
    'SELECT min(next_at) AS next_at FROM submission_polls WHERE connector_id = $1',
    [connectorId],
  );
  return row?.next_at ?? null;
}

/** Where a message went: what a carrier's receipt about it says of its destination. */
export interface ReceiptDestination {
  readonly accountId: number;
  readonly channelType: Channel;
  readonly senderName: string;
  readonly destination: string;
  readonly errorCode: number;
}

/**
 * The messages of carrier receipts (by their submissions), with each receipt's error code: for the carrier's
 * blocklist (stoplists/). A receipt whose submission is not recorded yet finds nothing.
 */
export async function messagesOfReceipts(
  db: Queryable,
  receipts: readonly { readonly connectorId: string; readonly carrierId: string; readonly errorCode: number }[],
): Promise<ReceiptDestination[]> {
  if (receipts.length === 0) return [];
  return db.query<ReceiptDestination>(
    `WITH found AS (
       SELECT s.account_id, s.message_id, r.code
       FROM unnest($1::text[], $2::text[], $3::int[]) AS r(connector_id, carrier_id, code)
       ${submissionOf('r', 's.account_id, s.message_id')}
     )
     SELECT DISTINCT m.account_id AS "accountId", m.channel_type AS "channelType", m.sender_name AS "senderName",
       m.destination, found.code AS "errorCode"
     FROM ${messagesJoin('found', 'm')}`,
    [receipts.map((r) => r.connectorId), receipts.map((r) => r.carrierId), receipts.map((r) => r.errorCode)],
  );
}
