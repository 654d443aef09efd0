import type { Queryable } from '../db/db.js';
import { messageNoteIgnored, messageSetStatus, type StatusRecord } from './deliverySql.js';
import { type CarrierReceipt, messageCountDeliveredParts, receiptsApply, submissionSetPartStates } from './receiptSql.js';

const RANK = { delivered: 1, undelivered: 1, unsent: 1, read: 2 } as const;

export interface ReceiptOutcome {
  /** Receipts that moved a message's status (or counted a part). */
  readonly applied: number;
  /** Receipts kept for later because their submission is not recorded yet. */
  readonly orphaned: number;
  /** Duplicates, and receipts for messages that have moved past them: noted in the history, nothing changed. */
  readonly ignored: number;
}

/**
 * Applies a batch of carrier receipts in the caller's transaction. A single-part message moves straight to the
 * receipt's status where the rules allow; a multi-part message records the state of each part and becomes
 * undelivered (or unsent) at its first failed part, delivered when all parts are delivered, read at a read. Late
 * and duplicate receipts change no status; they are noted in the message's history as ignored.
 */
export async function applyReceipts(tx: Queryable, receipts: readonly CarrierReceipt[]): Promise<ReceiptOutcome> {
  // One receipt per part per batch: the furthest state wins (a read implies the delivery before it).
  const latest = new Map<string, CarrierReceipt>();
  for (const receipt of receipts) {
    const key = `${receipt.connectorId}\u0000${receipt.carrierId}`;
    const seen = latest.get(key);
    if (!seen || RANK[receipt.state] > RANK[seen.state]) latest.set(key, receipt);
  }
  const { matched, orphaned } = await receiptsApply(tx, [...latest.values()]);

  const ignored = matched.filter((m) => m.parts === 1 && !m.moved);
  let applied = matched.length - ignored.length;
  const multipart = matched.filter((m) => m.parts > 1);
  if (multipart.length > 0) {
    const changed = await submissionSetPartStates(tx, multipart);
    applied -= multipart.length - changed.length;
    const statuses: StatusRecord[] = [];
    const delivered = new Map<string, { accountId: number; id: string; parts: number; at: Date }>();
    for (const part of changed) {
      if (part.st !== 'delivered') {
        statuses.push({ accountId: part.account_id, id: part.message_id, status: part.st, at: part.at, errorCode: part.ec });
        continue;
      }
      const entry = delivered.get(part.message_id) ?? { accountId: part.account_id, id: part.message_id, parts: 0, at: part.at };
      entry.parts++;
      if (part.at > entry.at) entry.at = part.at;
      delivered.set(part.message_id, entry);
    }
    for (const done of await messageCountDeliveredParts(tx, [...delivered.values()])) {
      statuses.push({ accountId: done.account_id, id: done.id, status: 'delivered', at: delivered.get(done.id)!.at, errorCode: null });
    }
    await messageSetStatus(tx, statuses);
  }
  await messageNoteIgnored(tx, ignored.map((m) => ({ accountId: m.account_id, id: m.message_id, status: m.st, at: m.at })));
  return { applied, orphaned, ignored: receipts.length - applied - orphaned };
}
