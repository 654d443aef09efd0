import type { Queryable } from '../db/db.js';
import { messageSetStatus, type StatusRecord } from './deliverySql.js';
import { type CarrierReceipt, messageCountDeliveredParts, submissionApplyReceipts } from './receiptSql.js';

const RANK = { delivered: 1, undelivered: 1, unsent: 1, read: 2 } as const;

export interface ReceiptOutcome {
  /** Messages whose status changed. */
  readonly moved: number;
  /** Receipts kept for later because their submission is not recorded yet. */
  readonly orphaned: number;
  /** Duplicates, and receipts for parts already final or messages that have moved past them. */
  readonly ignored: number;
}

/**
 * Applies a batch of carrier receipts in the caller's transaction: records each on its part, then moves messages
 * forward: a failed part makes the message undelivered (or unsent), all parts delivered make it delivered, a read
 * makes it read. Late and duplicate receipts are recorded on their part (if it had none) and change nothing else.
 */
export async function applyReceipts(tx: Queryable, receipts: readonly CarrierReceipt[]): Promise<ReceiptOutcome> {
  // One receipt per part per batch: the furthest state wins (a read implies the delivery before it).
  const latest = new Map<string, CarrierReceipt>();
  for (const receipt of receipts) {
    const key = `${receipt.connectorId}\u0000${receipt.carrierId}`;
    const seen = latest.get(key);
    if (!seen || RANK[receipt.state] > RANK[seen.state]) latest.set(key, receipt);
  }
  const { matched, orphaned } = await submissionApplyReceipts(tx, [...latest.values()]);

  const statuses: StatusRecord[] = [];
  const multipart = new Map<string, { accountId: number; id: string; parts: number; at: Date }>();
  for (const m of matched) {
    if (m.st === 'delivered' && m.parts > 1) {
      const key = m.message_id;
      const entry = multipart.get(key) ?? { accountId: m.account_id, id: m.message_id, parts: 0, at: m.at };
      entry.parts++;
      if (m.at > entry.at) entry.at = m.at;
      multipart.set(key, entry);
    } else {
      statuses.push({ accountId: m.account_id, id: m.message_id, status: m.st, at: m.at, errorCode: m.ec });
    }
  }
  const complete = await messageCountDeliveredParts(tx, [...multipart.values()]);
  for (const done of complete) {
    const entry = multipart.get(done.id)!;
    statuses.push({ accountId: done.account_id, id: done.id, status: 'delivered', at: entry.at, errorCode: null });
  }
  const moved = await messageSetStatus(tx, statuses);
  return { moved: moved.length, orphaned, ignored: receipts.length - matched.length - orphaned };
}
