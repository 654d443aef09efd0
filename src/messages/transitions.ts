import { FROM_STATUSES, type Outcome, type ReadStatus, type Status } from './statuses.js';
import { isoMs } from '../util/time.js';

/** One entry of a message's status history. */
export interface HistoryEntry {
  readonly status: string;
  readonly at: string;
  readonly errorCode?: number;
  readonly detail?: string;
  readonly connector?: string;
  readonly retryAt?: string;
  /** A receipt that changed nothing (late or duplicate). */
  readonly ignored?: boolean;
  /** An attempt a reroute abandoned (DESIGN 21); ignored too. */
  readonly rerouted?: boolean;
}

/** An entry as a message row stores it: it may leave its time to the row (messageObject.ts, historyOf). */
export type StoredHistoryEntry = Omit<HistoryEntry, 'at'> & { readonly at?: string };

/** What a transition leads to: an outcome, or `sending` again (a retry). */
export type Target = Outcome | 'sending';

/**
 * One change to a message row, applied where the message is still in one of `from` (a status never goes back).
 * Several facts about one message that arrive together (its submission and, 20 ms later, its receipts) are merged
 * into one transition, so the row is written once.
 */
export interface Transition {
  readonly accountId: number;
  readonly id: string;
  status: Target;
  readonly from: readonly Status[];
  at: Date;
  errorCode: number | null;
  connectorId: string | null;
  sentAt: Date | null;
  /** Set for retries: when the message is due again. */
  dueAt: Date | null;
  /**
   * Its entries, in order. A sent entry is at `sentAt` by `connectorId`, and the last entry is at `at`: the row's
   * sent_at, connector and status_at, which is why the row may store them without (transitionSql.ts, stored).
   */
  readonly history: HistoryEntry[];
  /** Receipts merged into this transition, to apply alone if the transition as a whole does not apply. */
  readonly receipts: ReceiptFact[];
  /** A sent transition: the route it went by and what it cost the operator (DESIGN 21, margins). */
  readonly route?: SentRoute;
  /** A transition from a receipt: the connector that reported it (a rerouted message ignores its old ones). */
  readonly receiptConnector?: string;
  /**
   * The claim's attempt it is an outcome of (a retry, or an end without a receipt): it applies only while the
   * message is still that claim's. A claim whose lease ran out before its outcome was written (a stalled process, a
   * clock that jumped) may find the message claimed again: its outcome is stale, and a stale retry would make the
   * message due while the newer claim sends it, which then goes twice. `attempts` counts the leases written in the
   * row (the fast lane's, and a claim's that takes a message whose row lease ran out); a claim record is named by
   * `claim`, which applies only while the record is there (a later claim deletes a record whose lease ran out).
   */
  readonly attempt?: number;
  readonly claim?: number;
}

/** The route a message was sent by, and its buy price for all its parts (null: the route names none). */
export interface SentRoute {
  readonly id: number;
  readonly buyPrice: { readonly amount: string; readonly currency: string } | null;
}

export interface ReceiptFact {
  readonly status: TargetStatus;
  readonly at: Date;
  readonly errorCode: number | null;
}

export const isReadOutcome = (target: Target): target is ReadStatus => target === 'read' || target === 'unread';

/** The message status a target leaves the message in: a read or unread one is delivered. */
export function statusAfter(target: Target): Status {
  return isReadOutcome(target) ? 'delivered' : target;
}

export function sentTransition(r: {
  accountId: number;
  id: string;
  connectorId: string;
  at: Date;
  route?: SentRoute;
}): Transition {
  return {
    accountId: r.accountId,
    id: r.id,
    status: 'sent',
    from: FROM_STATUSES.sent,
    at: r.at,
    errorCode: null,
    connectorId: r.connectorId,
    sentAt: r.at,
    dueAt: null,
    history: [{ status: 'sent', at: isoMs(r.at), connector: r.connectorId }],
    receipts: [],
    ...(r.route ? { route: r.route } : {}),
  };
}

export function retryTransition(r: {
  accountId: number;
  id: string;
  dueAt: Date;
  at: Date;
  reason: string;
  attempt?: number;
  claim?: number;
}): Transition {
  return {
    accountId: r.accountId,
    id: r.id,
    status: 'sending',
    from: ['sending'],
    at: r.at,
    errorCode: null,
    connectorId: null,
    sentAt: null,
    dueAt: r.dueAt,
    history: [{ status: 'sending', at: isoMs(r.at), retryAt: isoMs(r.dueAt), detail: r.reason }],
    receipts: [],
    ...(r.attempt === undefined ? {} : { attempt: r.attempt }),
    ...(r.claim === undefined ? {} : { claim: r.claim }),
  };
}

/** The outcomes a status transition may lead to: every one but `sent`, which comes with its submission. */
export type TargetStatus = Exclude<Outcome, 'sent'>;

export function statusTransition(r: {
  accountId: number;
  id: string;
  status: TargetStatus;
  at: Date;
  errorCode: number | null;
  detail?: string | undefined;
  fromReceipt?: boolean;
  /** The connector whose receipt this is. */
  receiptConnector?: string;
  attempt?: number;
  claim?: number;
}): Transition {
  const entry: HistoryEntry = {
    status: r.status,
    at: isoMs(r.at),
    ...(r.errorCode !== null ? { errorCode: r.errorCode } : {}),
    ...(r.detail ? { detail: r.detail } : {}),
  };
  return {
    accountId: r.accountId,
    id: r.id,
    status: r.status,
    from: FROM_STATUSES[r.status],
    at: r.at,
    errorCode: r.errorCode,
    connectorId: null,
    sentAt: null,
    dueAt: null,
    history: [entry],
    receipts: r.fromReceipt ? [{ status: r.status, at: r.at, errorCode: r.errorCode }] : [],
    ...(r.receiptConnector === undefined ? {} : { receiptConnector: r.receiptConnector }),
    ...(r.attempt === undefined ? {} : { attempt: r.attempt }),
    ...(r.claim === undefined ? {} : { claim: r.claim }),
  };
}

/**
 * Adds a receipt's outcome to the transition already pending for its message, when the status rules allow going
 * on from where the pending transition leaves it (sent -> delivered -> read). A read that overtakes the delivery
 * records the delivery first, at the read's time. Returns false for a duplicate or late receipt, leaving the
 * transition unchanged.
 */
export function mergeReceipt(into: Transition, receipt: ReceiptFact): boolean {
  // A retry pending means the carrier took nothing: no receipt can belong with it.
  if (into.status === 'sending') return false;
  const current = statusAfter(into.status);
  if (!FROM_STATUSES[receipt.status].includes(current)) return false;
  if (isReadOutcome(receipt.status) && isReadOutcome(into.status)) return false;
  if (receipt.status === 'read' && current !== 'delivered')
    into.history.push({ status: 'delivered', at: isoMs(receipt.at) });
  into.status = receipt.status;
  into.at = receipt.at;
  if (receipt.errorCode !== null) into.errorCode = receipt.errorCode;
  into.history.push({
    status: receipt.status,
    at: isoMs(receipt.at),
    ...(receipt.errorCode !== null ? { errorCode: receipt.errorCode } : {}),
  });
  into.receipts.push(receipt);
  return true;
}

/**
 * Splits transitions into rounds with at most one transition per message each, in their order: one statement can
 * change a row only once, and a message's later facts must see its earlier ones applied.
 */
export function roundsOf(transitions: readonly Transition[]): Transition[][] {
  const rounds: Transition[][] = [];
  const seen = new Map<string, number>();
  for (const t of transitions) {
    const n = seen.get(t.id) ?? 0;
    seen.set(t.id, n + 1);
    (rounds[n] ??= []).push(t);
  }
  return rounds;
}
