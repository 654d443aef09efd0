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
  for (const message of valid) {
    if (!channels[message.channelType]) {
      items.push(itemError(herald('channelNotEnabled', { channelType: message.channelType })));
      continue;
    }
    const id = uuid7(now.getTime());
    const subscriber = lookupSubscriber(ctx.plan, message.destination, message.country);
    const plan = planSend(messageWindow(message, subscriber.zones), now.getTime());
    rows.push({ id, message, subscriber, plannedSendAt: plan.plannedSendAt, deadlineAt: plan.deadlineAt });
    items.push({ messageUuid: id, code: 201 });
  }
  const response: SendResponse = { errors: rows.length !== valid.length, items };

  const result = await runIdempotent(ctx.db, idempotent, async (tx) => {
    if (rows.length > 0) {
      await messageInsertBatch(tx, {
        accountId: principal.accountId,
        trafficCenterId: principal.trafficCenterId,
        now,
        messages: rows,
      });
    }
    return { statusCode: 200, body: response };
  });
  if (rows.length > 0) ctx.wakeup.notify();
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
