import type { Queryable } from '../db/db.js';
import { messageApplyTransitions, messageNoteIgnored } from './deliverySql.js';
import {
  type CarrierReceipt,
  type MatchedReceipt,
  messageCountDeliveredParts,
  submissionMatchReceipts,
  submissionSetPartStates,
} from './receiptSql.js';
import { statusTransition, type Transition } from './transitions.js';

const RANK = { delivered: 1, undelivered: 1, unsent: 1, read: 2 } as const;

export interface ReceiptOutcome {
  /** Receipts that moved a message's status (or counted a part). */
  readonly applied: number;
  /** Receipts kept for later because their submission is not recorded yet. */
  readonly orphaned: number;
  /** Duplicates, and receipts for messages that have moved past them: noted in the history, nothing changed. */
  readonly ignored: number;
}

/** One receipt per part: the furthest state wins (a read implies the delivery before it). */
export function latestPerPart(receipts: readonly CarrierReceipt[]): CarrierReceipt[] {
  const latest = new Map<string, CarrierReceipt>();
  for (const receipt of receipts) {
    const key = `${receipt.connectorId}\u0000${receipt.carrierId}`;
    const seen = latest.get(key);
    if (!seen || RANK[receipt.state] > RANK[seen.state]) latest.set(key, receipt);
  }
  return [...latest.values()];
}

/**
 * Applies carrier receipts through the database, in the caller's transaction: each finds its submission (or is
 * kept as an orphan); a single-part message moves to the receipt's status where the rules allow; a multi-part
 * message records each part and becomes undelivered (or unsent) at its first failed part, delivered when all
 * its parts are. Receipts that change nothing are noted in the message's history as ignored.
 */
export async function applyReceipts(tx: Queryable, receipts: readonly CarrierReceipt[]): Promise<ReceiptOutcome> {
  const { matched, orphaned } = await submissionMatchReceipts(tx, latestPerPart(receipts));
  const transitions: Transition[] = [];
  const single = matched.filter((m) => m.parts === 1);
  for (const m of single) transitions.push(receiptTransition(m, m.receipt.at));

  const multipart = matched.filter((m) => m.parts > 1);
  const changedParts = await submissionSetPartStates(tx, multipart);
  const delivered = new Map<string, { accountId: number; id: string; parts: number; at: Date }>();
  for (const part of changedParts) {
    if (part.receipt.state !== 'delivered') {
      transitions.push(receiptTransition(part, part.receipt.at));
      continue;
    }
    const entry = delivered.get(part.messageId) ?? { accountId: part.accountId, id: part.messageId, parts: 0, at: part.receipt.at };
    entry.parts++;
    if (part.receipt.at > entry.at) entry.at = part.receipt.at;
    delivered.set(part.messageId, entry);
  }
  for (const done of await messageCountDeliveredParts(tx, [...delivered.values()])) {
    const entry = delivered.get(done.id)!;
    transitions.push(statusTransition({ accountId: done.account_id, id: done.id, status: 'delivered', at: entry.at, errorCode: null, fromReceipt: true }));
  }
  const unmoved = await messageApplyTransitions(tx, transitions);
  const ignored = single.filter((m) => unmoved.has(m.messageId));
  await messageNoteIgnored(tx, ignored.map((m) => ({ accountId: m.accountId, id: m.messageId, status: m.receipt.state, at: m.receipt.at })));
  const unchangedParts = multipart.length - changedParts.length;
  const applied = matched.length - ignored.length - unchangedParts;
  return { applied, orphaned, ignored: receipts.length - applied - orphaned };
}

function receiptTransition(m: MatchedReceipt, at: Date): Transition {
  return statusTransition({ accountId: m.accountId, id: m.messageId, status: m.receipt.state, at, errorCode: m.receipt.errorCode, fromReceipt: true });
}
