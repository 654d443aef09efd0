import type { AppContext } from '../context.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import type { Principal } from '../http/auth.js';
import { idempotentReplay, type IdempotentResult, runIdempotent } from '../idempotency/idempotency.js';
import { activeSenderNames } from '../senderNames/senderNames.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { uuid7 } from '../util/uuid7.js';
import { lookupSubscriber } from '../numbering/subscriber.js';
import { messageWindow } from '../schedule/messageWindow.js';
import { planSend } from '../schedule/sendWindow.js';
import type { ClaimedMessage } from '../delivery/deliverySql.js';
import { messageInsertBatch, type NewMessage } from './messageSql.js';
import { REGISTERED_SENDER_CHANNELS, validateMessage, type ValidMessage } from './validateMessage.js';

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
 * stored), generates each message in request order, and stores the batch in one transaction in status `sending`.
 */
export async function sendMessages(ctx: AppContext, request: SendRequest): Promise<IdempotentResult<SendResponse>> {
  const now = ctx.clock.now();
  const { principal, body } = request;
  const idempotent = {
    accountId: principal.accountId,
    operation: 'message',
    key: request.idempotencyKey,
    body,
    now,
  };
  const earlier = await idempotentReplay<SendResponse>(ctx.db, idempotent);
  if (earlier) return earlier;

  const valid = await validateBatch(ctx, principal.accountId, body, now);
  const channels = enabledChannels(principal.accountChannels);
  const items: SendItem[] = [];
  const rows: NewMessage[] = [];
  // The fast lane: messages due now go straight to this process's dispatcher, as far as it has room.
  let directRoom = ctx.directDispatch?.room() ?? 0;
  const leaseUntil = new Date(now.getTime() + (ctx.directDispatch?.leaseMs ?? 0));
  for (const message of valid) {
    if (!channels[message.channelType]) {
      items.push(itemError(herald('channelNotEnabled', { channelType: message.channelType })));
      continue;
    }
    const id = uuid7(now.getTime());
    const subscriber = lookupSubscriber(ctx.plan, message.destination, message.country);
    const plan = planSend(messageWindow(message, subscriber.zones), now.getTime());
    const leased = directRoom > 0 && plan.plannedSendAt !== null && plan.plannedSendAt.getTime() <= now.getTime();
    if (leased) directRoom--;
    rows.push({ id, message, subscriber, plannedSendAt: plan.plannedSendAt, deadlineAt: plan.deadlineAt, leased });
    items.push({ messageUuid: id, code: 201 });
  }
  const response: SendResponse = { errors: rows.length !== valid.length, items };

  const result = await runIdempotent(ctx.db, idempotent, async (tx) => {
    if (rows.length > 0) {
      await messageInsertBatch(tx, {
        accountId: principal.accountId,
        trafficCenterId: principal.trafficCenterId,
        now,
        leaseUntil,
        messages: rows,
      });
    }
    return { statusCode: 200, body: response };
  });
  if (!result.replayed && rows.length > 0) {
    const direct = rows.filter((row) => row.leased);
    if (direct.length > 0) ctx.directDispatch!.take(direct.map((row) => claimedOf(row, principal.accountId)));
    if (direct.length < rows.length) ctx.wakeup.notify();
  }
  return result;
}

function itemError(error: HeraldError): SendItem {
  return { code: error.code, msg: error.message };
}

async function validateBatch(ctx: AppContext, accountId: number, body: unknown, now: Date): Promise<ValidMessage[]> {
  if (!Array.isArray(body)) throw herald('notAnArray');
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_BATCH) throw herald('tooManyMessages');

  const registered = new Set<Channel>();
  for (const item of body) {
    if (isPlainObject(item) && REGISTERED_SENDER_CHANNELS.has(item.channelType as Channel)) {
      registered.add(item.channelType as Channel);
    }
  }
  const isSenderNameActive = await activeSenderNames(ctx.db, accountId, [...registered], now);
  const validation = {
    now,
    isSenderNameActive,
    allowPrivateCallbacks: ctx.config.callbackAllowPrivate,
    shortenerAvailable: ctx.config.shortUrlBase !== undefined,
  };
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
    deadline_ms: row.deadlineAt.getTime(),
    planned_send_ms: row.plannedSendAt!.getTime(),
    attempts: 1,
  };
}
