import { type AppContext, type DirectHandOver, NO_DIRECT_ROOM } from '../context.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import type { Principal } from '../http/auth.js';
import { idempotentReplay, type IdempotentResult, runIdempotent } from '../idempotency/index.js';
import { lookupSubscriber } from '../numbering/index.js';
import { activeSenderNames } from '../senderNames/index.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { VOICECODE_SENDER_NAME } from './channelContent.js';
import { type Candidate, countAccepted, prepareMessages, type Sender, storeMessages } from './generate.js';
import type { ClaimedMessage } from './messageDeliverySql.js';
import type { NewMessage } from './messageSql.js';
import {
  REGISTERED_SENDER_CHANNELS,
  validateMessage,
  type ValidationContext,
  type ValidMessage,
} from './validateMessage.js';

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
}

/**
 * POST /api/v1/message: validates the whole batch (the first invalid message -> 422 with its `index`, nothing
 * stored), generates each message in request order (channel enabled, links shortened, priced, funds reserved)
 * and stores the batch in one transaction in status `sending`.
 */
export async function sendMessages(ctx: AppContext, request: SendRequest): Promise<IdempotentResult<SendResponse>> {
  const now = ctx.clock.now();
  const { principal, body } = request;
  const idempotent = { accountId: principal.accountId, operation: 'message', key: request.idempotencyKey, body, now };
  const earlier = await idempotentReplay<SendResponse>(ctx.db, idempotent);
  if (earlier) return earlier;

  const valid = await validateBatch(ctx, principal.accountId, body, now);
  const sender = senderOf(principal);
  const prepared = await prepareMessages(
    ctx,
    ctx.db,
    sender,
    valid.map((message) => ({ message })),
    enabledChannels(principal.accountChannels),
    now,
  );
  const candidates = prepared.filter((c): c is Candidate => !(c instanceof HeraldError));

  let stored: NewMessage[] = [];
  // The fast lane: messages due now go straight to this process's dispatcher, as far as it has room.
  const direct = ctx.directDispatch?.open() ?? NO_DIRECT_ROOM;
  try {
    const result = await runIdempotent(ctx.db, idempotent, async (tx) => {
      const results = await storeMessages(tx, ctx, sender, candidates, now, {
        directRoom: direct,
        leaseUntil: new Date(now.getTime() + (ctx.directDispatch?.leaseMs ?? 0)),
        limitCallbackUrls: true,
      });
      const byId = new Map(candidates.map((c, i) => [c.id, results[i]!]));
      const items = prepared.map((p): SendItem => {
        const outcome = p instanceof HeraldError ? p : byId.get(p.id)!;
        return outcome instanceof HeraldError ? itemError(outcome) : { messageUuid: outcome.id, code: 201 };
      });
      stored = results.filter((r): r is NewMessage => !(r instanceof HeraldError));
      return { statusCode: 200, body: { errors: items.some((item) => item.code !== 201), items } };
    });

    if (!result.replayed) handOver(ctx, stored, principal.accountId, direct);
    return result;
  } finally {
    direct.close();
  }
}

/** The sender of a request: the web pages send with a sign-in's session token, which API clients cannot hold. */
export function senderOf(principal: Principal): Sender {
  return {
    accountId: principal.accountId,
    currency: principal.accountCurrency,
    trafficCenterId: principal.trafficCenterId,
    sendingMethod: principal.sessionId === null ? 'API' : 'UI',
    paced: principal.accountMaxRate !== null,
  };
}

/**
 * After the commit: counts the stored messages, hands those leased to this process to its dispatcher, and wakes
 * the dispatcher for the others.
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
 * After the commit: hands the stored messages leased to this process to its dispatcher; returns how many. The
 * others are left for a claim (the caller wakes the dispatcher).
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

/** A stored, leased message as the dispatcher takes it from a claim. */
function claimedOf(row: NewMessage, accountId: number): ClaimedMessage {
  const m = row.message;
  return {
    account_id: accountId,
    id: row.id,
    channel_type: m.channelType,
    sender_name: m.senderName,
    destination: m.destination,
    country: m.country,
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
    cascade_id: row.cascade?.id ?? null,
    traffic_type: m.trafficType,
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
