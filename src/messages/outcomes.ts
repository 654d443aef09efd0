import type { Queryable } from '../db/db.js';
import type { CarrierReceipt } from '../shared/receipts.js';
import {
  type MatchedReceipt,
  orphanReceiptsTakeMatched,
  submissionMatchReceipts,
  submissionSetPartStates,
} from './submissionSql.js';
import type { StepOutcome } from './stepOutcomes.js';
import {
  type IgnoredReceipt,
  messageApplyTransitions,
  messageCountDeliveredParts,
  messageLockOrdered,
  messageNoteIgnored,
  type SubmissionRow,
} from './transitionSql.js';
import {
  mergeReceipt,
  retryTransition,
  roundsOf,
  type SentRoute,
  sentTransition,
  statusTransition,
  type TargetStatus,
  type Transition,
} from './transitions.js';

/*
 * What happened to messages, recorded: the submitter's outcomes (sent, retries, statuses) and carriers' receipts,
 * in the order of the statements of transitionSql.ts and submissionSql.ts. The delivery writer forms its batch with
 * messageOutcomes and records it with messageRecordOutcomes; the jobs and intake call one function each here.
 */

/**
 * A batch of what happened to messages, as the submitter and the connectors report it. A record of a step of a
 * cascade says so (`cascade`): its outcome is recorded with the cascade's next step, in one transaction.
 */
export interface OutcomeBatch {
  /** Messages a connector accepted, with the carrier ids of their parts. */
  readonly sent: readonly {
    readonly accountId: number;
    readonly id: string;
    readonly cascade?: boolean;
    readonly connectorId: string;
    readonly at: Date;
    readonly carrierIds: readonly string[];
    /** VIBER, VK, WHATSAPP: a read may follow the delivery. */
    readonly readTracked: boolean;
    /**
     * false: no receipt will come to look for the submission, as the carrier's answer was the outcome (Telegram's
     * Bot API; the caller hands that receipt over with it): its parts are not recorded in `submissions`.
     */
    readonly receiptsFollow?: boolean;
    /** The provider's price of the message (declarative connectors that read one). */
    readonly buyPrice?: number;
    /** The route it went by, with the route's buy price for its parts. */
    readonly route?: SentRoute;
    /** The provider is polled for its statuses until then. */
    readonly pollUntil?: Date;
  }[];
  /** Messages to try again at `dueAt`. */
  readonly retries: readonly {
    readonly accountId: number;
    readonly id: string;
    readonly cascade?: boolean;
    readonly dueAt: Date;
    readonly at: Date;
    readonly reason: string;
    /** The claim's attempt (ClaimedMessage.attempts): a later claim's message is not changed by it. */
    readonly attempt?: number;
    /** The claim record it was taken by (ClaimedMessage.claim_id), when one: it applies only while the record is. */
    readonly claim?: number;
  }[];
  /** Messages that reached a status without a receipt (refused by a connector, no route, past their deadline). */
  readonly statuses: readonly {
    readonly accountId: number;
    readonly id: string;
    readonly cascade?: boolean;
    readonly status: TargetStatus;
    readonly at: Date;
    readonly errorCode: number | null;
    readonly detail?: string;
    /** The claim's attempt and record, as for retries. */
    readonly attempt?: number;
    readonly claim?: number;
  }[];
  /** Receipts of single-part messages whose submission the caller knows (made recently in this process). */
  readonly known: readonly { readonly accountId: number; readonly id: string; readonly receipt: CarrierReceipt }[];
  /** Receipts whose submissions are looked up in the database. */
  readonly receipts: readonly CarrierReceipt[];
}

/** A batch formed into transitions, ready to record ({@link messageOutcomes}). */
export interface Outcomes {
  readonly transitions: readonly Transition[];
  /** The submissions to record with the first round of transitions. */
  readonly submissions: readonly SubmissionRow[];
  /** Carrier receipts whose submissions are looked up in the database. */
  readonly receipts: readonly CarrierReceipt[];
  /** Receipts already known to have changed nothing. */
  readonly ignored: readonly IgnoredReceipt[];
  /**
   * Recording takes several statements (receipts to look up, or more than one change of a message): the caller
   * runs them in one transaction, and every message they change is locked first, in the global order, before any
   * refund locks a balance (a stop holding one of them may be waiting for it). Otherwise it is one statement,
   * atomic by itself (refunds and events included).
   */
  readonly severalStatements: boolean;
}

/**
 * Forms a batch into transitions, one per message where they can be merged (a sent message and its receipt in the
 * same batch become one change), more where they cannot (applied in rounds); a known receipt that contradicts the
 * change already formed for its message is noted as ignored.
 */
export function messageOutcomes(batch: Partial<OutcomeBatch>): Outcomes {
  const transitions = new Map<string, Transition>();
  const extra: Transition[] = [];
  const put = (transition: Transition): void => {
    if (transitions.has(transition.id)) extra.push(transition);
    else transitions.set(transition.id, transition);
  };
  const submissions: SubmissionRow[] = [];
  for (const r of batch.sent ?? []) {
    put(sentTransition(r));
    if (r.receiptsFollow === false) continue;
    submissions.push({
      connectorId: r.connectorId,
      carrierIds: r.carrierIds,
      accountId: r.accountId,
      id: r.id,
      at: r.at,
      ...(r.buyPrice === undefined ? {} : { buyPrice: r.buyPrice }),
      ...(r.pollUntil === undefined ? {} : { pollUntil: r.pollUntil }),
    });
  }
  for (const r of batch.retries ?? []) put(retryTransition(r));
  for (const r of batch.statuses ?? []) put(statusTransition(r));
  const ignored: IgnoredReceipt[] = [];
  for (const { accountId, id, receipt } of batch.known ?? []) {
    const fact = { status: receipt.state, at: receipt.at, errorCode: receipt.errorCode };
    const pending = transitions.get(id);
    const own = (): Transition =>
      statusTransition({ accountId, id, ...fact, fromReceipt: true, receiptConnector: receipt.connectorId });
    if (!pending) transitions.set(id, own());
    // Another connector's receipt than the one the pending change sent by: an attempt a reroute abandoned.
    else if (pending.connectorId !== null && pending.connectorId !== receipt.connectorId) extra.push(own());
    else if (!mergeReceipt(pending, fact)) ignored.push({ accountId, id, status: receipt.state, at: receipt.at });
  }
  const receipts = batch.receipts ?? [];
  return {
    transitions: [...transitions.values(), ...extra],
    submissions,
    receipts,
    ignored,
    severalStatements: receipts.length > 0 || extra.length > 0,
  };
}

/** What {@link messageRecordOutcomes} did beside moving messages. */
export interface RecordedOutcomes {
  /** Receipts kept for later because their submission is not recorded yet. */
  readonly orphaned: number;
  /** Receipts that changed nothing. */
  readonly ignored: number;
  /** Messages a carrier's failure sent on through their route's next connector: due now. */
  readonly rerouted: number;
}

/**
 * Records formed outcomes in the caller's transaction (one statement when not {@link Outcomes.severalStatements}):
 * receipts find their submissions, transitions apply in rounds, receipts then apply to what they found, and
 * whatever changed nothing is noted. Steps of cascades that ended are added to `ended`.
 */
export async function messageRecordOutcomes(
  q: Queryable,
  outcomes: Outcomes,
  ended: StepOutcome[],
): Promise<RecordedOutcomes> {
  const found = outcomes.receipts.length > 0 ? await matchReceipts(q, outcomes.receipts) : undefined;
  if (outcomes.severalStatements)
    await messageLockOrdered(q, [...outcomes.transitions, ...(found ? receiptMessages(found) : [])]);
  const ignored = [...outcomes.ignored];
  const rerouted: string[] = [];
  const unmoved = await applyTransitions(q, outcomes.transitions, outcomes.submissions, ended, rerouted);
  for (const t of unmoved)
    for (const r of t.receipts) ignored.push({ accountId: t.accountId, id: t.id, status: r.status, at: r.at });
  let orphaned = 0;
  let ignoredInDb = 0;
  if (found) {
    const outcome = await applyMatchedReceipts(q, found, ended, rerouted);
    orphaned = outcome.orphaned;
    ignoredInDb = outcome.ignored;
  }
  await messageNoteIgnored(q, ignored);
  return { orphaned, ignored: ignoredInDb + ignored.length, rerouted: rerouted.length };
}

export interface ReceiptOutcome {
  /** Receipts that moved a message's status (or counted a part). */
  readonly applied: number;
  /** Receipts kept for later because their submission is not recorded yet. */
  readonly orphaned: number;
  /** Duplicates, and receipts for messages that have moved past them: noted in the history, nothing changed. */
  readonly ignored: number;
}

/**
 * The receipts worth applying per part, in the order to apply them: its first final receipt (delivered,
 * undelivered or unsent; a later one can only be a duplicate or a contradiction, which the status rules ignore),
 * then its first read. A read and the delivery it follows may come in one batch, or the read first: both are kept,
 * the delivery ahead, so that the delivery is recorded (and called back) before the read.
 */
export function receiptsPerPart(receipts: readonly CarrierReceipt[]): CarrierReceipt[] {
  const finals = new Map<string, CarrierReceipt>();
  const reads = new Map<string, CarrierReceipt>();
  for (const receipt of receipts) {
    const key = `${receipt.connectorId}\u0000${receipt.carrierId}`;
    const kept = receipt.state === 'read' ? reads : finals;
    if (!kept.has(key)) kept.set(key, receipt);
  }
  return [...finals.values(), ...reads.values()];
}

/**
 * Transitions from receipts, one per message where they can be merged (a delivery and its read become one change),
 * more where they cannot (they are then applied in rounds, each seeing the one before).
 */
export function receiptTransitions(
  receipts: readonly { accountId: number; messageId: string; receipt: CarrierReceipt }[],
): Transition[] {
  const byMessage = new Map<string, Transition>();
  const more: Transition[] = [];
  for (const { accountId, messageId, receipt } of receipts) {
    const fact = { status: receipt.state, at: receipt.at, errorCode: receipt.errorCode };
    const pending = byMessage.get(messageId);
    if (pending && mergeReceipt(pending, fact)) continue;
    const transition = statusTransition({
      accountId,
      id: messageId,
      ...fact,
      fromReceipt: true,
      receiptConnector: receipt.connectorId,
    });
    if (pending) more.push(transition);
    else byMessage.set(messageId, transition);
  }
  return [...byMessage.values(), ...more];
}

/**
 * Applies transitions in rounds (one change per message per statement), the first with the submissions to
 * record, and returns those that changed nothing.
 * A merged change that does not apply as a whole (the row had moved on) is retried as its receipts alone.
 */
export async function applyTransitions(
  tx: Queryable,
  transitions: readonly Transition[],
  submissions: readonly SubmissionRow[] = [],
  ended?: StepOutcome[],
  rerouted?: string[],
): Promise<Transition[]> {
  const unmoved: Transition[] = [];
  const rounds = roundsOf(transitions);
  if (rounds.length === 0 && submissions.length > 0) rounds.push([]);
  for (const [n, round] of rounds.entries()) {
    const ids = await messageApplyTransitions(tx, round, n === 0 ? submissions : [], ended, rerouted);
    for (const t of round) if (ids.has(t.id)) unmoved.push(t);
  }
  // A transition that is more than one receipt: a submission with its receipts, or a delivery with its read.
  const merged = (t: Transition): boolean => t.receipts.length > 0 && (t.receipts.length > 1 || t.history.length > 1);
  const retry = unmoved.filter(merged);
  if (retry.length === 0) return unmoved;
  const alone = retry.flatMap((t) =>
    t.receipts.map((r) => statusTransition({ accountId: t.accountId, id: t.id, ...r, fromReceipt: true })),
  );
  const stillUnmoved: Transition[] = unmoved.filter((t) => !merged(t));
  for (const round of roundsOf(alone)) {
    const ids = await messageApplyTransitions(tx, round, [], ended, rerouted);
    for (const t of round) if (ids.has(t.id)) stillUnmoved.push(t);
  }
  return stillUnmoved;
}

/** Receipts found with their submissions, and how many were kept as orphans for later. */
export interface FoundReceipts {
  readonly receipts: number;
  readonly matched: readonly MatchedReceipt[];
  readonly orphaned: number;
}

/**
 * Finds the submissions of carrier receipts (the first final receipt and the first read of each part), keeping
 * those not recorded yet as orphans.
 */
export async function matchReceipts(tx: Queryable, receipts: readonly CarrierReceipt[]): Promise<FoundReceipts> {
  const { matched, orphaned } = await submissionMatchReceipts(tx, receiptsPerPart(receipts));
  return { receipts: receipts.length, matched, orphaned };
}

/** The messages found receipts change: to be locked first in a transaction of several statements. */
export const receiptMessages = (found: FoundReceipts): { accountId: number; id: string }[] =>
  found.matched.map((m) => ({ accountId: m.accountId, id: m.messageId }));

/**
 * Applies carrier receipts through the database, in the caller's transaction: each finds its submission (or is
 * kept as an orphan); a single-part message moves to the receipt's outcome where the rules allow; a multi-part
 * message records each part and becomes undelivered (or unsent) at its first failed part, delivered when all its
 * parts are. Receipts that change nothing are noted in the message's history as ignored. The messages are locked
 * in the global order before anything else: applying takes several statements, and refunds lock balances.
 */
export async function messageApplyReceipts(
  tx: Queryable,
  receipts: readonly CarrierReceipt[],
  ended?: StepOutcome[],
): Promise<ReceiptOutcome> {
  const found = await matchReceipts(tx, receipts);
  await messageLockOrdered(tx, receiptMessages(found));
  return applyMatchedReceipts(tx, found, ended);
}

/**
 * Takes the orphan receipts whose submission has been recorded since and applies them, in the caller's transaction
 * (taken and applied together: a crash between the two would lose them); drops those older than `expiredBefore`.
 */
export async function messageApplyOrphanReceipts(
  tx: Queryable,
  expiredBefore: Date,
  ended?: StepOutcome[],
): Promise<ReceiptOutcome | undefined> {
  const matched = await orphanReceiptsTakeMatched(tx, expiredBefore);
  return matched.length > 0 ? messageApplyReceipts(tx, matched, ended) : undefined;
}

/** Applies receipts already matched ({@link matchReceipts}) whose messages the transaction holds. */
export async function applyMatchedReceipts(
  tx: Queryable,
  found: FoundReceipts,
  ended?: StepOutcome[],
  rerouted?: string[],
): Promise<ReceiptOutcome> {
  const { matched, orphaned } = found;
  const single = matched.filter((m) => m.parts === 1);
  const perMessage: { accountId: number; messageId: string; receipt: CarrierReceipt }[] = [...single];

  const multipart = matched.filter((m) => m.parts > 1);
  const changedParts: MatchedReceipt[] = [];
  for (const round of partRounds(multipart)) changedParts.push(...(await submissionSetPartStates(tx, round)));
  // By message and connector: the parts of an attempt a reroute abandoned are not counted (messageCountDeliveredParts).
  const delivered = new Map<string, { accountId: number; id: string; connectorId: string; parts: number; at: Date }>();
  for (const part of changedParts) {
    if (part.receipt.state !== 'delivered') {
      perMessage.push(part);
      continue;
    }
    const key = `${part.messageId}\u0000${part.receipt.connectorId}`;
    const entry = delivered.get(key) ?? {
      accountId: part.accountId,
      id: part.messageId,
      connectorId: part.receipt.connectorId,
      parts: 0,
      at: part.receipt.at,
    };
    entry.parts++;
    if (part.receipt.at > entry.at) entry.at = part.receipt.at;
    delivered.set(key, entry);
  }
  const transitions = receiptTransitions(perMessage);
  for (const done of await messageCountDeliveredParts(tx, [...delivered.values()])) {
    const entry = delivered.get(`${done.id}\u0000${done.connector_id}`)!;
    // The whole message is delivered: ahead of any read of its parts in this batch.
    transitions.unshift(
      statusTransition({
        accountId: done.account_id,
        id: done.id,
        status: 'delivered',
        at: entry.at,
        errorCode: null,
        fromReceipt: true,
        receiptConnector: entry.connectorId,
      }),
    );
  }
  const unmoved = await applyTransitions(tx, transitions, [], ended, rerouted);
  const ignored = unmoved.flatMap((t) =>
    t.receipts.map((r) => ({ accountId: t.accountId, id: t.id, status: r.status, at: r.at })),
  );
  await messageNoteIgnored(tx, ignored);
  const unchangedParts = multipart.length - changedParts.length;
  const applied = matched.length - ignored.length - unchangedParts;
  return { applied, orphaned, ignored: found.receipts - applied - orphaned };
}

/** Multi-part receipts split so that each statement sees a part once (a delivery and then its read). */
function partRounds(receipts: readonly MatchedReceipt[]): MatchedReceipt[][] {
  const rounds: MatchedReceipt[][] = [];
  const seen = new Map<string, number>();
  for (const m of receipts) {
    const key = `${m.receipt.connectorId}\u0000${m.receipt.carrierId}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    (rounds[n] ??= []).push(m);
  }
  return rounds;
}
