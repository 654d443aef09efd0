import { FROM_STATUSES, type Status } from './statuses.js';

/** One entry of a message's status history. */
export interface HistoryEntry {
  readonly status: string;
  readonly at: string;
  readonly errorCode?: number;
  readonly detail?: string;
  readonly connector?: string;
  readonly retryAt?: string;
}

/**
 * One change to a message row, applied where the message is still in one of `from` (a status never goes back).
 * Several facts about one message that arrive together (its submission and, 20 ms later, its receipt) are merged
 * into one transition, so the row is written once.
 */
export interface Transition {
  readonly accountId: number;
  readonly id: string;
  status: Status;
  readonly from: readonly Status[];
  at: Date;
  errorCode: number | null;
  connectorId: string | null;
  sentAt: Date | null;
  /** Set for retries: when the message is due again. */
  dueAt: Date | null;
  readonly history: HistoryEntry[];
  /** Receipts merged into this transition, to apply alone if the transition as a whole does not apply. */
  readonly receipts: { status: Status; at: Date; errorCode: number | null }[];
}

const iso = (date: Date): string => date.toISOString();

export function sentTransition(r: { accountId: number; id: string; connectorId: string; at: Date }): Transition {
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
    history: [{ status: 'sent', at: iso(r.at), connector: r.connectorId }],
    receipts: [],
  };
}

export function retryTransition(r: { accountId: number; id: string; dueAt: Date; at: Date; reason: string }): Transition {
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
    history: [{ status: 'sending', at: iso(r.at), retryAt: iso(r.dueAt), detail: r.reason }],
    receipts: [],
  };
}

export type TargetStatus = Exclude<Status, 'sending' | 'inbound_sent' | 'sent'>;

export function statusTransition(r: {
  accountId: number;
  id: string;
  status: TargetStatus;
  at: Date;
  errorCode: number | null;
  detail?: string | undefined;
  fromReceipt?: boolean;
}): Transition {
  const entry: HistoryEntry = {
    status: r.status,
    at: iso(r.at),
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
  };
}

/**
 * Adds a receipt's status to the transition already pending for its message, when the status rules allow going
 * on from the pending status (sent -> delivered -> read). Returns false when they do not (a duplicate or late
 * receipt), leaving the transition unchanged.
 */
export function mergeReceipt(into: Transition, receipt: { status: TargetStatus; at: Date; errorCode: number | null }): boolean {
  if (!(FROM_STATUSES[receipt.status] as readonly Status[]).includes(into.status)) return false;
  into.status = receipt.status;
  into.at = receipt.at;
  if (receipt.errorCode !== null) into.errorCode = receipt.errorCode;
  into.history.push({ status: receipt.status, at: iso(receipt.at), ...(receipt.errorCode !== null ? { errorCode: receipt.errorCode } : {}) });
  into.receipts.push(receipt);
  return true;
}
