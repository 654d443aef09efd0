import { type AppContext, type DirectHandOver, NO_DIRECT_ROOM } from '../context.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import type { Principal } from '../accounts/index.js';
import { countRefusals } from '../guard/index.js';
import { type CallbackEvent, SMPP_BINDS_URL, SMPP_FAILURE_RECEIPTS_URL } from '../callbacks/index.js';
import type { Queryable } from '../db/db.js';
import { JSON_SLICE_BYTES, sliceEnds } from '../db/jsonSlices.js';
import {
  type IdempotentRequest,
  idempotentReplay,
  type IdempotentResult,
  runIdempotent,
  runIdempotentInSlices,
} from '../idempotency/index.js';
import { lookupSubscriber } from '../numbering/index.js';
import { activeSenderNames } from '../senderNames/index.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { VOICECODE_SENDER_NAME } from './channelContent.js';
import { type Candidate, countAccepted, prepareMessages, type Sender, storeMessages } from './generation.js';
import type { ClaimedMessage, NewMessage, ValidMessage } from '../messages/index.js';
import { REGISTERED_SENDER_CHANNELS, validateMessage, type ValidationContext } from './validateMessage.js';

export const MAX_BATCH = 1000;

export type SendItem = { messageUuid: string; code: 201 } | { code: number; msg: string };
export interface SendResponse {
  errors: boolean;
  items: SendItem[];
}

export interface SendRequest {
  readonly principal: Principal;
  readonly body: unknown;
  readonly idempotencyKey: string | undefined;
  /** The receipts the messages send to the account's SMPP binds (a submit_sm's registered_delivery, smppServer/). */
  readonly smppReceipts?: SmppReceipts;
  /**
   * Store the batch in one transaction whatever its size, never in slices (SMPP's batches: a failure must leave none
   * of the batch stored, see smppServer/submitBatches.ts, which keeps them within {@link ONE_TRANSACTION_BYTES}).
   */
  readonly oneTransaction?: boolean;
}

/**
 * Which receipts a message submitted over SMPP sends back to the account's binds, as callback events of a target
 * that stands for them: `final` the final status (the `delivered` event) of every message (`all`, through
 * {@link SMPP_BINDS_URL}) or of failed ones only (`failures`, through {@link SMPP_FAILURE_RECEIPTS_URL}), or none;
 * `intermediate` the hand-over to a carrier (the `sent` event) too.
 */
export interface SmppReceipts {
  readonly final: 'all' | 'failures' | null;
  readonly intermediate: boolean;
}

/** The callback URL and events of messages that send `receipts`, or undefined when they send none. */
function smppCallback(
  receipts: SmppReceipts | undefined,
): { callbackUrl: string; callbackEvents: CallbackEvent[] } | undefined {
  if (!receipts || (receipts.final === null && !receipts.intermediate)) return undefined;
  return {
    callbackUrl: receipts.final === 'failures' ? SMPP_FAILURE_RECEIPTS_URL : SMPP_BINDS_URL,
    callbackEvents: [
      ...(receipts.final ? (['delivered'] as const) : []),
      ...(receipts.intermediate ? (['sent'] as const) : []),
    ],
  };
}

/**
 * POST /api/v1/message: validates the whole batch (the first invalid message -> 422 with its `index`, nothing
 * stored), generates each message in request order (channel enabled, links shortened, priced, funds reserved)
 * and stores the batch in status `sending`: in one transaction, or a batch of large rows in slices (see
 * {@link storeBatch}).
 */
export async function sendMessages(ctx: AppContext, request: SendRequest): Promise<IdempotentResult<SendResponse>> {
  const now = ctx.clock.now();
  const { principal, body } = request;
  const idempotent = { accountId: principal.accountId, operation: 'message', key: request.idempotencyKey, body, now };
  const earlier = await idempotentReplay<SendResponse>(ctx.db, idempotent);
  if (earlier) return earlier;

  const validated = await validateBatch(ctx, principal.accountId, body, now);
  const receipts = smppCallback(request.smppReceipts);
  const valid = receipts ? validated.map((m) => Object.assign({}, m, receipts)) : validated;
  const sender = senderOf(principal);
  const prepared = await prepareMessages(
    ctx,
    ctx.db,
    sender,
    valid.map((message) => ({ message })),
    enabledChannels(principal.accountChannels),
    now,
  );

  // The fast lane: messages due now go straight to this process's submitter, as far as it has room.
  const direct = ctx.directSubmit?.open() ?? NO_DIRECT_ROOM;
  try {
    // The SMPP binds' target is Herald's own, one per account: not a new URL of the client's daily allowance.
    const store = storeInOrder(ctx, sender, valid, prepared, now, direct, !receipts);
    const rowBytes = request.oneTransaction ? 'one transaction' : (i: number) => messageRowBytes(valid[i]!);
    return await storeBatch(ctx, idempotent, store, rowBytes);
  } finally {
    direct.close();
  }
}

/**
 * A batch whose rows ({@link messageRowBytes}) are within this is stored in one transaction with its idempotency
 * record, as it always was: all of it or none. 1000 short SMS are about 300 KB. The SMPP server cuts its batches to it
 * (smppServer/submitBatches.ts) and has them stored in one transaction ({@link SendRequest.oneTransaction}).
 */
export const ONE_TRANSACTION_BYTES = JSON_SLICE_BYTES;

/**
 * A larger batch is stored in slices of this much, one short transaction each. Measured with batches of 1000
 * six-step cascades of long SMS (14 MB) back to back on PGlite, load average 6-7 (test/hostile/bigCascades.test.ts):
 * another account's send p99 754 ms with the whole batch in one transaction, 267 ms in slices of 512 KiB, 201 ms of
 * 256 KiB, 164-182 ms of 128 KiB, 145-151 ms of 64 KiB, which made each batch 40 % longer (7 s -> 10-12 s). 128 KiB
 * was kept then; on a later machine (load 1-2.5) 128 KiB missed the 200 ms target in 7 runs of 8 (201-270 ms) and
 * 64 KiB in 2 of 7 (208, 212 ms): the attacker's own batch pays for the others' turns.
 */
const TRANSACTION_SLICE_BYTES = 64 * 1024;

/**
 * Stores a batch whose items `store` stores a range at a time: within {@link ONE_TRANSACTION_BYTES} of rows in one
 * transaction with its idempotency record; a larger one (1000 cascades of 6 long SMS are 14 MB) in slices of
 * {@link TRANSACTION_SLICE_BYTES}, one short transaction each, so that other accounts' transactions run between them
 * (PGlite runs one at a time: the batch's one transaction held it 0.5-2 s). See {@link runIdempotentInSlices} for
 * what a key promises then. Each slice's messages are handed over once it commits. `rowBytes` 'one transaction':
 * in one transaction whatever its size ({@link SendRequest.oneTransaction}).
 */
export async function storeBatch(
  ctx: AppContext,
  idempotent: IdempotentRequest,
  store: RangeStore,
  rowBytes: ((index: number) => number) | 'one transaction',
): Promise<IdempotentResult<SendResponse>> {
  if (rowBytes === 'one transaction' || withinOneTransaction(store.count, rowBytes)) {
    const result = await runIdempotent(ctx.db, idempotent, async (tx) =>
      respond(await store.store(tx, 0, store.count)),
    );
    if (!result.replayed) store.committed();
    return result;
  }
  return runIdempotentInSlices(ctx.db, idempotent, {
    ends: sliceEnds(store.count, rowBytes, TRANSACTION_SLICE_BYTES),
    store: (tx, start, end) => store.store(tx, start, end),
    committed: () => store.committed(),
    respond,
    now: () => ctx.clock.now(),
  });
}

/** Whether `count` rows of `rowBytes` are within {@link ONE_TRANSACTION_BYTES} (counted until they are past it). */
function withinOneTransaction(count: number, rowBytes: (index: number) => number): boolean {
  let bytes = 0;
  for (let i = 0; i < count && bytes <= ONE_TRANSACTION_BYTES; i++) bytes += rowBytes(i);
  return bytes <= ONE_TRANSACTION_BYTES;
}

/** A batch's items stored a range at a time in request order (see {@link storeBatch}). */
export interface RangeStore {
  readonly count: number;
  /** Stores the items [start, end) in `tx`; returns their items of the answer. */
  store(tx: Queryable, start: number, end: number): Promise<SendItem[]>;
  /** After a commit: hands over the messages stored since the last call. */
  committed(): void;
}

const respond = (items: SendItem[]): { statusCode: number; body: SendResponse } => ({
  statusCode: 200,
  body: { errors: items.some((item) => item.code !== 201), items },
});

/** A row's size as storing it counts (see sliceEnds): its content and some 300 bytes of other columns. */
export function messageRowBytes(message: { readonly content?: unknown }): number {
  const content = message.content ?? null;
  return 300 + (typeof content === 'string' ? content.length : JSON.stringify(content).length);
}

/**
 * Stores prepared messages a range at a time, in request order: funds are taken in order across the ranges (a
 * currency that ran out stays out for the rest of the batch). The range's refused items are counted by code in the
 * same transaction (statistics by refusal code): a replayed answer stores, and counts, nothing again.
 */
function storeInOrder(
  ctx: AppContext,
  sender: Sender,
  valid: readonly ValidMessage[],
  prepared: readonly (Candidate | HeraldError)[],
  now: Date,
  direct: DirectHandOver,
  limitCallbackUrls: boolean,
): RangeStore {
  const exhausted = new Set<string>();
  let stored: NewMessage[] = [];
  return {
    count: prepared.length,
    async store(tx, start, end) {
      stored = [];
      const range = prepared.slice(start, end);
      const candidates = range.filter((c): c is Candidate => !(c instanceof HeraldError));
      const results = await storeMessages(tx, ctx, sender, candidates, now, {
        directRoom: direct,
        leaseUntil: new Date(now.getTime() + (ctx.directSubmit?.leaseMs ?? 0)),
        limitCallbackUrls,
        exhausted,
      });
      const byId = new Map(candidates.map((c, i) => [c.id, results[i]!]));
      stored = results.filter((r): r is NewMessage => !(r instanceof HeraldError));
      const items = range.map((p): SendItem => {
        const outcome = p instanceof HeraldError ? p : byId.get(p.id)!;
        return outcome instanceof HeraldError ? itemError(outcome) : { messageUuid: outcome.id, code: 201 };
      });
      const refusals = items.flatMap((item, k) =>
        item.code === 201 ? [] : [{ channelType: valid[start + k]!.channelType, code: item.code }],
      );
      await countRefusals(tx, ctx.metrics.refusals, sender.accountId, refusals, now);
      return items;
    },
    committed: () => handOver(ctx, stored, sender.accountId, direct),
  };
}

/** The sender of a request: the web pages send with a sign-in's session token, which API clients cannot hold. */
export function senderOf(principal: Principal): Sender {
  return {
    accountId: principal.accountId,
    currency: principal.accountCurrency,
    trafficCenterId: principal.trafficCenterId,
    sendingMethod: principal.sessionId === null ? 'API' : 'UI',
    paced: principal.accountMaxRate !== null,
    guard: principal.guard,
  };
}

/**
 * After the commit: counts the stored messages, hands those leased to this process to its submitter, and wakes
 * the submitter for the others.
 */
export function handOver(
  ctx: AppContext,
  stored: readonly NewMessage[],
  accountId: number,
  direct: DirectHandOver,
): void {
  if (stored.length === 0) return;
  countAccepted(ctx, stored);
  if (handLeased(stored, accountId, direct) < stored.length) ctx.wakeup.notify();
}

/**
 * After the commit: hands the stored messages leased to this process to its submitter; returns how many. The
 * others are left for a claim (the caller wakes the submitter).
 */
export function handLeased(stored: readonly NewMessage[], accountId: number, direct: DirectHandOver): number {
  const leased = stored.filter((row) => row.leased);
  if (leased.length > 0) direct.hand(leased.map((row) => claimedOf(row, accountId)));
  return leased.length;
}

export function itemError(error: HeraldError): SendItem {
  return { code: error.code, msg: error.message };
}

async function validateBatch(ctx: AppContext, accountId: number, body: unknown, now: Date): Promise<ValidMessage[]> {
  if (!Array.isArray(body)) throw herald('notAnArray');
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_BATCH) throw herald('tooManyMessages');

  const validation = await validationContext(ctx, accountId, body, now);
  return body.map((item: unknown, index) => {
    try {
      return validateMessage(item, validation);
    } catch (error) {
      if (error instanceof HeraldError) throw error.with({ index });
      throw error;
    }
  });
}

/** A stored, leased message as the submitter takes it from a claim. */
function claimedOf(row: NewMessage, accountId: number): ClaimedMessage {
  const m = row.message;
  return {
    account_id: accountId,
    id: row.id,
    channel_type: m.channelType,
    sender_name: m.senderName,
    destination: m.destination,
    country: m.country,
    brand: row.subscriber.brand,
    content: m.content,
    total_parts: m.totalParts,
    ttl: m.ttl,
    external_message_id: m.externalMessageId,
    use_local_time: m.useLocalTime,
    local_send_time: m.localSendTime,
    local_completion_time: m.localCompletionTime,
    hours: m.hours as number[] | null,
    days: m.days as number[] | null,
    template_id: row.templateId,
    deadline_ms: row.deadlineAt.getTime(),
    expires_ms: row.expiresAt.getTime(),
    planned_send_ms: row.plannedSendAt!.getTime(),
    attempts: 1,
    claim_id: null,
    cascade_id: row.cascade?.id ?? null,
    traffic_type: m.trafficType,
    reroute: null,
  };
}

/**
 * What validating `messages` (message objects, or cascade steps) needs to know of the account at `now`: its active
 * registered sender names and approved VOICECODE templates, and Herald's settings.
 */
export async function validationContext(
  ctx: AppContext,
  accountId: number,
  messages: readonly unknown[],
  now: Date,
): Promise<ValidationContext> {
  const registered = new Set<Channel>();
  for (const item of messages) {
    if (isPlainObject(item) && REGISTERED_SENDER_CHANNELS.has(item.channelType as Channel)) {
      registered.add(item.channelType as Channel);
    }
  }
  const isSenderNameActive = await activeSenderNames(ctx.db, accountId, [...registered], now);
  // VOICECODE texts of the account's own approved templates; the matcher is cached per account.
  const voicecode = messages.some((item) => isPlainObject(item) && item.channelType === 'VOICECODE');
  const matchTemplate = voicecode ? await ctx.templates.forAccount(accountId) : undefined;
  return {
    now,
    isSenderNameActive,
    isArrangedVoicecode: (content: unknown) =>
      matchTemplate?.('VOICECODE', VOICECODE_SENDER_NAME, content, now) !== undefined,
    allowPrivateCallbacks: ctx.config.callbackAllowPrivate,
    shortenerAvailable: ctx.config.shortUrlBase !== undefined,
    subscriberZones: (destination) => lookupSubscriber(ctx.plan, destination.msisdn, destination.country ?? null).zones,
  };
}
