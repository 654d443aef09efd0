import { accountTakePace, type Principal } from '../accounts/index.js';
import {
  cascadeInsertBatch,
  cascadesRunningOfDispatches,
  cascadesStopOfDispatch,
  type ValidStep,
  validateCascade,
} from '../cascades/index.js';
import { type AppContext, NO_DIRECT_ROOM } from '../context.js';
import type { Queryable } from '../db/db.js';
import { herald, HeraldError, showValue } from '../errors/catalogue.js';
import { countRefusals, type Refusal } from '../guard/index.js';
import { idempotentReplay, type IdempotentResult, runIdempotent } from '../idempotency/index.js';
import {
  type Candidate,
  type MessageToGenerate,
  newMessageId,
  prepareMessages,
  senderOf,
  storeMessages,
  validateMessage,
  validationContext,
} from '../sending/index.js';
import { DELIVERY_ERRORS, type NewMessage, type ValidMessage, dispatchMessages } from '../messages/index.js';
import { enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { isoUtc } from '../util/time.js';
import {
  type DispatchCascade,
  type DispatchRow,
  dispatchGet,
  dispatchInsert,
  dispatchSetStatus,
  type Speed,
} from './dispatchSql.js';
import { planHeldMessages } from './dispatchPlan.js';
import { cascadeSubstitution, contentToValidate, messageSubstitution } from './substitutions.js';

/** A dispatch's statuses in the API. */
export const STATUSES = ['initiated', 'scheduled', 'sending', 'awaiting', 'done', 'paused', 'stopped'] as const;
export type DispatchStatus = (typeof STATUSES)[number];

/** Messages added per call. */
export const MAX_ADD = 1000;
/** Dispatches hold PROMO traffic unless they say otherwise. */
const DEFAULT_TRAFFIC_TYPE = 'PROMO';
/** Stands in for the destinations while the dispatch's own message is validated. */
const SOME_DESTINATION = '79000000000';
const UNIT_MS = { minute: 60_000, hour: 3_600_000 } as const;
/** Messages stopped per statement when a dispatch stops. */
const STOP_BATCH = 1000;

const DISPATCH_FIELDS = ['dispatchName', 'speed', 'cascade'];

export interface Created {
  dispatchId: string;
  status: string;
}

/**
 * POST /api/v1/dispatch: the dispatch's message is validated as a message of its channel (its content may hold
 * placeholders, which are plain text until substituted, except in a FLASHCALL code or a VOICECODE text: see
 * contentToValidate); its status is `initiated`. With an `Idempotency-Key`, a retry gets the first answer.
 */
export async function createDispatch(
  ctx: AppContext,
  principal: Principal,
  body: unknown,
  key: string | undefined,
): Promise<IdempotentResult<Created>> {
  const now = ctx.clock.now();
  const idempotent = { accountId: principal.accountId, operation: 'dispatch', key, body, now };
  const earlier = await idempotentReplay<Created>(ctx.db, idempotent);
  if (earlier) return earlier;
  if (!isPlainObject(body)) throw herald('notAnObject');
  const name = body.dispatchName;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    throw name === undefined || name === null
      ? herald('missingField', { field: 'dispatchName' })
      : herald('invalidField', { field: 'dispatchName', value: showValue(name) });
  const speed = validateSpeed(body.speed);
  const fields = Object.fromEntries(Object.entries(body).filter(([key]) => !DISPATCH_FIELDS.includes(key)));
  if ('destination' in fields) throw herald('fieldNotAccepted', { field: 'destination' });
  const channels = enabledChannels(principal.accountChannels);
  let message: ValidMessage;
  let cascade: DispatchCascade | null = null;
  if (body.cascade !== undefined && body.cascade !== null) {
    // The steps replace channelType, senderName and content; the other fields are the cascade's common fields.
    for (const field of ['channelType', 'senderName', 'content'])
      if (fields[field] !== undefined && fields[field] !== null) throw herald('fieldNotAccepted', { field });
    const steps = Array.isArray(body.cascade) ? (body.cascade as unknown[]) : [];
    const validation = await validationContext(ctx, principal.accountId, steps, now);
    const common = { trafficType: DEFAULT_TRAFFIC_TYPE, ...fields };
    const standIns = steps.map((step) =>
      isPlainObject(step) ? contentToValidate(step.channelType, step.content) : undefined,
    );
    const valid = validateCascade(
      {
        ...common,
        destination: SOME_DESTINATION,
        cascade: steps.map((step, i) => (isPlainObject(step) ? { ...step, content: standIns[i] } : step)),
      },
      validation,
    );
    for (const step of valid.steps)
      if (!channels[step.message.channelType])
        throw herald('channelNotEnabled', { channelType: step.message.channelType });
    message = withContent(valid.steps[0]!.message, (steps[0] as Record<string, unknown>).content, standIns[0]);
    cascade = { fields: common, steps: steps as Record<string, unknown>[] };
  } else {
    const validation = await validationContext(ctx, principal.accountId, [fields], now);
    const content = contentToValidate(fields.channelType, fields.content);
    message = validateMessage(
      { trafficType: DEFAULT_TRAFFIC_TYPE, ...fields, content, destination: SOME_DESTINATION },
      validation,
    );
    message = withContent(message, fields.content, content);
    if (!channels[message.channelType]) throw herald('channelNotEnabled', { channelType: message.channelType });
  }
  const id = newMessageId(now);
  const sender = senderOf(principal);
  const stored = message;
  return runIdempotent(ctx.db, idempotent, async (tx) => {
    await dispatchInsert(tx, {
      accountId: principal.accountId,
      id,
      name,
      now,
      message: stored,
      speed,
      speedMs: speed ? UNIT_MS[speed.unit] / speed.amount : 0,
      trafficCenterId: sender.trafficCenterId,
      sendingMethod: sender.sendingMethod,
      currency: sender.currency,
      cascade,
    });
    return { statusCode: 201, body: { dispatchId: id, status: 'initiated' } };
  });
}

/**
 * A message validated with `validatedWith`: when that stood in for the content given (contentToValidate), the message
 * with the content given, placeholders and all.
 */
function withContent(message: ValidMessage, given: unknown, validatedWith: unknown): ValidMessage {
  return given === validatedWith ? message : { ...message, content: given };
}

function validateSpeed(value: unknown): Speed | null {
  if (value === undefined || value === null) return null;
  const ok =
    isPlainObject(value) &&
    Number.isInteger(value.amount) &&
    (value.amount as number) >= 1 &&
    (value.amount as number) <= 1_000_000 &&
    (value.unit === 'minute' || value.unit === 'hour') &&
    Object.keys(value).every((k) => k === 'amount' || k === 'unit');
  if (!ok) throw herald('invalidField', { field: 'speed', value: showValue(value) });
  return { amount: (value as { amount: number }).amount, unit: (value as { unit: Speed['unit'] }).unit };
}

export type AddItem =
  { destination: unknown; messageUuid: string } | { destination: unknown; errorCode: number; msg: string };

/**
 * POST /api/v1/dispatch/{id}/messages: 1-1000 destinations with their substitutions, while the dispatch is
 * `initiated`. Each becomes a message at once (priced and reserved, held until the start) or an item error: 7401
 * when it differs from AddItemSchema or its destination or substitutions make no valid message, else the send's own
 * codes (4020 and the like). With an `Idempotency-Key`, a retry gets the first answer and adds nothing.
 */
export async function addDispatchMessages(
  ctx: AppContext,
  principal: Principal,
  dispatchId: string,
  body: unknown,
  key: string | undefined,
): Promise<IdempotentResult<AddItem[]>> {
  const accountId = principal.accountId;
  const now = ctx.clock.now();
  // The dispatch is part of the request: one key for adds to two dispatches is a key reused.
  const idempotent = { accountId, operation: 'dispatch-messages', key, body: { dispatchId, items: body }, now };
  const earlier = await idempotentReplay<AddItem[]>(ctx.db, idempotent);
  if (earlier) return earlier;
  if (!Array.isArray(body)) throw herald('notAnArray');
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_ADD) throw herald('tooManyMessages');
  const dispatch = await dispatchGet(ctx.db, accountId, dispatchId);
  if (!dispatch) throw herald('notFound', { what: `Dispatch ${dispatchId}` });
  const cascade = dispatch.cascade;
  const validation = await validationContext(ctx, accountId, cascade ? cascade.steps : [dispatch.message], now);
  const substituted = cascade
    ? { cascade: cascadeSubstitution(cascade, validation) }
    : { message: messageSubstitution(dispatch.message, validation) };
  const items: (AddItem | undefined)[] = new Array(body.length);
  // Each valid entry: a message, or a cascade whose first step is its message (its id the cascade's).
  const valid: { index: number; message: MessageToGenerate & { id: string }; steps?: readonly ValidStep[] }[] = [];
  body.forEach((item: unknown, index) => {
    // null for an item without one: every item of the answer has its destination (its schema says so).
    const destination = isPlainObject(item) ? (item.destination ?? null) : null;
    try {
      const id = newMessageId(now);
      if (substituted.cascade) {
        const { steps } = substituted.cascade(item);
        valid.push({ index, message: { id, message: steps[0]!.message, cascade: { id, step: 1 }, dispatchId }, steps });
      } else valid.push({ index, message: { id, message: substituted.message(item), dispatchId } });
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      items[index] = {
        destination,
        errorCode: 7401,
        msg: herald('dispatchItemInvalid', { reason: error.message }).message,
      };
    }
  });
  const sender = senderOf(principal);
  const prepared = await prepareMessages(
    ctx,
    ctx.db,
    sender,
    valid.map((v) => v.message),
    undefined,
    now,
  );
  const candidates = prepared.filter((c): c is Candidate => !(c instanceof HeraldError));
  return runIdempotent(ctx.db, idempotent, async (tx) => {
    // Shared with other adds; a start waits for them, and no add follows it.
    const locked = await dispatchGet(tx, accountId, dispatchId, 'share');
    if (locked?.status !== 'initiated')
      throw herald('conflict', {
        reason: `Dispatch ${dispatchId} is ${locked?.status}: messages are added before it starts`,
      });
    const results = await storeMessages(tx, ctx, sender, candidates, now, {
      directRoom: NO_DIRECT_ROOM,
      leaseUntil: now,
      limitCallbackUrls: true,
    });
    const byId = new Map(candidates.map((c, i) => [c.id, results[i]!]));
    if (cascade)
      await cascadeInsertBatch(tx, {
        accountId,
        now,
        trafficCenterId: sender.trafficCenterId,
        sendingMethod: sender.sendingMethod,
        currency: sender.currency,
        cascades: valid.flatMap((v) =>
          byId.get(v.message.id) instanceof HeraldError || !byId.has(v.message.id)
            ? []
            : [{ id: v.message.id, steps: v.steps! }],
        ),
        dispatchId,
      });
    const refusals: Refusal[] = [];
    prepared.forEach((p, i) => {
      const { index } = valid[i]!;
      const destination = (body[index] as { destination: unknown }).destination;
      const outcome: HeraldError | NewMessage = p instanceof HeraldError ? p : byId.get(p.id)!;
      if (outcome instanceof HeraldError)
        refusals.push({ channelType: valid[i]!.message.message.channelType, code: outcome.code });
      items[index] =
        outcome instanceof HeraldError
          ? { destination, errorCode: outcome.code, msg: outcome.message }
          : { destination, messageUuid: outcome.id };
    });
    await countRefusals(tx, ctx.metrics.refusals, accountId, refusals, now);
    return { statusCode: 200, body: items as AddItem[] };
  });
}

/** What a status change may come from. */
const CHANGES = {
  start: { from: ['initiated'], to: 'started' },
  pause: { from: ['started'], to: 'paused' },
  resume: { from: ['paused'], to: 'started' },
  stop: { from: ['initiated', 'started', 'paused'], to: 'stopped' },
} as const;
export type Change = keyof typeof CHANGES;

/**
 * Start, pause, resume or stop. Start and resume plan the held messages from now, spread at the dispatch's speed
 * from the moment each one's send window opens (see planHeldMessages).
 * Pause holds every message waiting in the queue, stop makes each one unsent, refunded; then both wait until the
 * dispatch is settled (see settle) before they answer: no message of it goes to a carrier after a pause's or a
 * stop's answer, and every message a pause held is planned again by the resume.
 */
export async function changeDispatch(
  ctx: AppContext,
  accountId: number,
  dispatchId: string,
  change: Change,
  key: string | undefined,
): Promise<IdempotentResult<{ dispatchId: string }>> {
  const now = ctx.clock.now();
  const rule = CHANGES[change];
  // One key for another change or another dispatch is a key reused.
  const idempotent = { accountId, operation: 'dispatch-change', key, body: { dispatchId, change }, now };
  const result =
    (await idempotentReplay<{ dispatchId: string }>(ctx.db, idempotent)) ??
    (await runIdempotent(ctx.db, idempotent, async (tx) => {
      const dispatch = await dispatchGet(tx, accountId, dispatchId, 'update');
      if (!dispatch) throw herald('notFound', { what: `Dispatch ${dispatchId}` });
      if (!(rule.from as readonly string[]).includes(dispatch.status))
        throw herald('conflict', { reason: `Dispatch ${dispatchId} is ${dispatch.status}: it cannot ${change}` });
      await dispatchSetStatus(tx, accountId, dispatchId, rule.to, change === 'start' ? now : undefined);
      if (change === 'start' || change === 'resume') {
        // A paced account's dispatch takes its send slots, at its own speed or the account's rate if slower.
        const counts = await dispatchMessages.counts(tx, accountId, [dispatchId], now);
        const held = counts.reduce((n, c) => n + c.held, 0);
        const slots = await accountTakePace(tx, accountId, 0, held, now, dispatch.speed_ms);
        const start = slots?.firstBulkAt ?? now;
        await planHeldMessages(tx, ctx.plan, accountId, dispatch, start, slots?.spacingMs ?? dispatch.speed_ms);
      }
      // A pause or stop takes its messages after this commit (see settle): a transaction recording a step of one of
      // its cascades locks messages, then cascades, then this row (FOR SHARE); taking messages here, after this row,
      // could deadlock with it.
      return { statusCode: 200, body: { dispatchId } };
    }));
  // A replayed pause or stop waits as the first did (its client may have gone before that answer): settle ends at
  // once when the dispatch has changed since.
  if (change === 'start' || change === 'resume') ctx.wakeup.notify();
  else await settle(ctx, accountId, dispatchId, change === 'pause' ? 'paused' : 'stopped');
  return result;
}

/**
 * Holds (paused) or stops (stopped) the dispatch's messages in `sending` that no worker holds now; a stop also stops
 * its running cascades (no later step). Messages are locked before cascades, as the delivery writer does.
 */
async function takeWaiting(
  tx: Queryable,
  accountId: number,
  dispatchId: string,
  status: 'paused' | 'stopped',
  now: Date,
): Promise<void> {
  if (status === 'paused') {
    await dispatchMessages.hold(tx, accountId, dispatchId, now);
    return;
  }
  let after: string | null = null;
  for (;;) {
    const batch = await dispatchMessages.stop(
      tx,
      accountId,
      dispatchId,
      now,
      DELIVERY_ERRORS.stopped,
      STOP_BATCH,
      after,
    );
    if (batch.taken < STOP_BATCH) break;
    after = batch.last;
  }
  await cascadesStopOfDispatch(tx, accountId, dispatchId, now);
}

/** How often a pause or a stop looks again at the messages in workers' hands (a hand-over takes milliseconds). */
const SETTLE_POLL_MS = 10;
/** Beyond a lease, how long a pause or a stop waits for a worker's outcome to be recorded. */
const SETTLE_GRACE_MS = 5000;

/**
 * Waits until a paused or stopped dispatch is settled: no message of it in `sending` that a worker could still
 * send (for a pause, every one held). The messages a worker held when the change came (claimed, leased, outcome
 * not yet recorded) end as their hand-over ends: sent, unsent, or back in the queue (a transient failure), where
 * the next look takes them as the change took the others. Once nothing is left, none can be claimed any more.
 * A worker that dies holding messages lets them go when its lease runs out: the wait is bounded by a lease
 * (HERALD_LEASE_SECONDS) and a grace for the record, on the system clock; past that it answers anyway, with a
 * warning. A resume or stop that comes meanwhile ends a pause's wait.
 */
async function settle(
  ctx: AppContext,
  accountId: number,
  dispatchId: string,
  status: 'paused' | 'stopped',
): Promise<void> {
  const giveUpAt = Date.now() + ctx.config.leaseSeconds * 1000 + SETTLE_GRACE_MS;
  for (let take = true; ;) {
    const now = ctx.clock.now();
    if (take) {
      const still = await ctx.db.transaction(async (tx) => {
        // Shared: a resume (FOR UPDATE) waits for this pass, and the pass sees whether one came.
        const dispatch = await dispatchGet(tx, accountId, dispatchId, 'share');
        if (dispatch?.status !== status) return false;
        await takeWaiting(tx, accountId, dispatchId, status, now);
        return true;
      });
      if (!still) return;
    }
    const left = await dispatchMessages.unsettled(ctx.db, accountId, dispatchId, now, status === 'stopped');
    if (left.left === 0) return;
    take = left.left > left.inHand;
    if (!take && Date.now() > giveUpAt) {
      ctx.log.warn(
        { dispatchId, inHand: left.inHand, leasedUntil: left.leasedUntil },
        `dispatch ${status}: messages still in a worker's hand; answering without them`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

const COUNTED = ['sending', 'sent', 'delivered', 'undelivered', 'unsent'] as const;
type Counters = Record<'total' | (typeof COUNTED)[number], number>;

/** A dispatch's messages and parts by status, and how many of its messages wait for a later instant. */
export function countersOf(
  dispatchId: string,
  counts: readonly dispatchMessages.DispatchCount[],
): { messages: Counters; parts: Counters; later: number } {
  const messages = Object.fromEntries(['total', ...COUNTED].map((k) => [k, 0])) as Counters;
  const parts = { ...messages };
  let later = 0;
  for (const c of counts) {
    if (c.dispatch_id !== dispatchId || !(COUNTED as readonly string[]).includes(c.status)) continue;
    messages[c.status as keyof Counters] += c.messages;
    parts[c.status as keyof Counters] += c.parts;
    messages.total += c.messages;
    parts.total += c.parts;
    later += c.later;
  }
  return { messages, parts, later };
}

/** The dispatch object of the list and of GET /api/v1/dispatch/{id}. */
export function dispatchToApi(d: DispatchRow, read: DispatchCounts) {
  const { messages, parts, later } = countersOf(d.id, read.counts);
  return {
    dispatchId: d.id,
    dispatchName: d.name,
    created: isoUtc(d.created_at)!,
    localSendTime: d.message.localSendTime,
    localCompletionTime: d.message.localCompletionTime,
    useLocalTime: d.message.useLocalTime,
    status: statusOf(d, messages, later, read.running.get(d.id) ?? 0),
    channelType: d.message.channelType,
    source: d.message.senderName,
    message: d.message.content,
    trafficType: d.message.trafficType,
    trafficCenterId: d.traffic_center_id,
    speed: d.speed,
    cascade: d.cascade ? [...d.cascade.steps] : null,
    messages,
    parts,
  };
}

/**
 * A started dispatch is `scheduled` while every message of it waits for a later instant (its window is ahead),
 * `sending` while messages wait or go, `awaiting` once all are with carriers and final statuses are pending (or a
 * cascade of it still runs: a later step may come, after an unread step), `done` when every message is final.
 */
function statusOf(d: DispatchRow, m: Counters, later: number, runningCascades: number): DispatchStatus {
  if (d.status !== 'started') return d.status;
  return startedStatus({
    sending: m.sending > 0,
    allLater: later === m.total,
    sent: m.sent > 0,
    running: runningCascades > 0,
  });
}

/** A started dispatch's status (see statusOf) from what its messages and cascades show. */
export function startedStatus(s: {
  readonly sending: boolean;
  /** Every message of it waits for a later instant. */
  readonly allLater: boolean;
  readonly sent: boolean;
  /** A cascade of it still runs. */
  readonly running: boolean;
}): DispatchStatus {
  if (s.sending) return s.allLater ? 'scheduled' : 'sending';
  return s.sent || s.running ? 'awaiting' : 'done';
}

/** What a dispatch object is read from: its messages by status, and its cascades still running. */
export interface DispatchCounts {
  readonly counts: readonly dispatchMessages.DispatchCount[];
  readonly running: ReadonlyMap<string, number>;
}

/** Read on `db`: the read replica for the API's lists and gets, where the dispatches themselves were read. */
export async function countsOf(
  db: Queryable,
  now: Date,
  accountId: number,
  ids: readonly string[],
): Promise<DispatchCounts> {
  const [counts, running] = await Promise.all([
    dispatchMessages.counts(db, accountId, ids, now),
    cascadesRunningOfDispatches(db, accountId, ids),
  ]);
  return { counts, running };
}
