import type { AppContext } from '../context.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import type { Principal } from '../http/auth.js';
import { idempotentReplay, type IdempotentResult, runIdempotent } from '../idempotency/index.js';
import { shortenText, shortLinkInsert, type ShortLink } from '../links/index.js';
import { fromMicros, type Micros, toMicros } from '../money/index.js';
import { reserveCharges } from '../money/index.js';
import { lookupSubscriber, type Subscriber } from '../numbering/index.js';
import { messageWindow } from '../schedule/index.js';
import { planSend } from '../schedule/index.js';
import { activeSenderNames } from '../senderNames/index.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { uuid7 } from '../util/uuid7.js';
import { whatsappWindowsOpenOf } from './whatsappWindows.js';
import { validateContent, VOICECODE_SENDER_NAME } from './channelContent.js';
import type { ClaimedMessage } from './messageDeliverySql.js';
import { messageInsertBatch, type NewMessage } from './messageSql.js';
import { REGISTERED_SENDER_CHANNELS, shortenableText, validateMessage, type ValidMessage } from './validateMessage.js';

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

/** A valid message on its way to being stored: content after link shortening, price, plan. */
interface Candidate {
  readonly index: number;
  readonly id: string;
  readonly message: ValidMessage;
  readonly subscriber: Subscriber;
  readonly plannedSendAt: Date | null;
  readonly deadlineAt: Date;
  readonly expiresAt: Date;
  readonly links: readonly ShortLink[];
  readonly charge: { amount: Micros; currency: string } | null;
  readonly templateId: number | null;
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
  await ctx.tariffs.refresh();
  const matchTemplate = await ctx.templates.forAccount(principal.accountId);
  const whatsapp = valid
    .filter((m) => m.channelType === 'WHATSAPP')
    .map((m): [string, string] => [m.senderName, m.destination]);
  const windows = await whatsappWindowsOpenOf(ctx.db, principal.accountId, whatsapp, now);
  const channels = enabledChannels(principal.accountChannels);
  const items: (SendItem | undefined)[] = new Array(valid.length);
  const candidates: Candidate[] = [];
  valid.forEach((original, index) => {
    if (!channels[original.channelType]) {
      items[index] = itemError(herald('channelNotEnabled', { channelType: original.channelType }));
      return;
    }
    const templateId = matchTemplate(original.channelType, original.senderName, original.content, now) ?? null;
    // WhatsApp chat rules (spec 2.2): outside the 24-hour window only content matching an approved template.
    if (
      original.channelType === 'WHATSAPP' &&
      templateId === null &&
      !windows.has(`${original.senderName}\u0000${original.destination}`)
    ) {
      items[index] = itemError(herald('noActiveTemplate'));
      return;
    }
    const shortened = original.shortUrl
      ? shorten(original, ctx.config.shortUrlBase!)
      : { message: original, links: [] };
    if (shortened instanceof HeraldError) {
      items[index] = itemError(shortened);
      return;
    }
    const { message, links } = shortened;
    const price = ctx.tariffs.lookup(principal.accountId, message.channelType, message.destination, message.country);
    if (!price && ctx.config.requireTariff) {
      items[index] = itemError(
        herald('noTariff', { channelType: message.channelType, destination: message.destination }),
      );
      return;
    }
    const subscriber = lookupSubscriber(ctx.plan, message.destination, message.country);
    const plan = planSend(messageWindow(message, subscriber.zones), now.getTime());
    candidates.push({
      index,
      id: uuid7(now.getTime()),
      message,
      subscriber,
      plannedSendAt: plan.plannedSendAt,
      deadlineAt: plan.deadlineAt,
      expiresAt: plan.expiresAt,
      links,
      charge: price ? { amount: toMicros(price.perPart) * BigInt(message.totalParts), currency: price.currency } : null,
      templateId,
    });
  });

  let stored: NewMessage[] = [];
  const result = await runIdempotent(ctx.db, idempotent, async (tx) => {
    // Callback URLs first: a message over the account's daily limit of new URLs is refused and reserves nothing.
    const targets = await ctx.callbackTargets.resolve(
      tx,
      principal.accountId,
      candidates.flatMap((c) => (c.message.callbackUrl ? [c.message.callbackUrl] : [])),
      now,
    );
    const reachable = candidates.map((c) => c.message.callbackUrl === null || targets.has(c.message.callbackUrl));
    const charges = candidates.map((c, i) => (reachable[i] ? c.charge : null));
    const taken = await reserveCharges(tx, principal.accountId, charges, now, `batch ${candidates[0]?.id ?? ''}`);
    // The fast lane: messages due now go straight to this process's dispatcher, as far as it has room.
    let directRoom = ctx.directDispatch?.room() ?? 0;
    const rows: NewMessage[] = [];
    candidates.forEach((c, i) => {
      if (!reachable[i]) {
        items[c.index] = itemError(herald('callbackUrlLimit', { limit: ctx.config.callbackUrlsPerDay }));
        return;
      }
      if (!taken[i]) {
        items[c.index] = itemError(herald('insufficientFunds'));
        return;
      }
      const leased = directRoom > 0 && c.plannedSendAt !== null && c.plannedSendAt.getTime() <= now.getTime();
      if (leased) directRoom--;
      rows.push({
        id: c.id,
        message: c.message,
        subscriber: c.subscriber,
        plannedSendAt: c.plannedSendAt,
        deadlineAt: c.deadlineAt,
        expiresAt: c.expiresAt,
        leased,
        price: c.charge ? fromMicros(c.charge.amount) : '0',
        currency: c.charge?.currency ?? principal.accountCurrency,
        callbackTargetId: c.message.callbackUrl ? targets.get(c.message.callbackUrl)! : null,
        templateId: c.templateId,
      });
      items[c.index] = { messageUuid: c.id, code: 201 };
    });
    if (rows.length > 0) {
      await messageInsertBatch(tx, {
        accountId: principal.accountId,
        trafficCenterId: principal.trafficCenterId,
        // The web pages send with a sign-in's session token, which API clients cannot hold (accounts/sessions.ts).
        sendingMethod: principal.sessionId === null ? 'API' : 'UI',
        currency: principal.accountCurrency,
        now,
        leaseUntil: new Date(now.getTime() + (ctx.directDispatch?.leaseMs ?? 0)),
        messages: rows,
      });
      await shortLinkInsert(
        tx,
        principal.accountId,
        candidates
          .filter((_, i) => reachable[i] && taken[i])
          .flatMap((c) => c.links.map((l) => ({ messageId: c.id, ...l }))),
        now,
      );
    }
    stored = rows;
    const done = items as SendItem[];
    return { statusCode: 200, body: { errors: done.some((item) => item.code !== 201), items: done } };
  });

  if (!result.replayed && stored.length > 0) {
    countAccepted(ctx, stored);
    const direct = stored.filter((row) => row.leased);
    if (direct.length > 0) ctx.directDispatch!.take(direct.map((row) => claimedOf(row, principal.accountId)));
    if (direct.length < stored.length) ctx.wakeup.notify();
  }
  return result;
}

function countAccepted(ctx: AppContext, stored: readonly NewMessage[]): void {
  const byChannel = new Map<string, number>();
  for (const row of stored) byChannel.set(row.message.channelType, (byChannel.get(row.message.channelType) ?? 0) + 1);
  for (const [channel, n] of byChannel) ctx.metrics.messagesAccepted.inc({ channel }, n);
}

function itemError(error: HeraldError): SendItem {
  return { code: error.code, msg: error.message };
}

/**
 * Replaces the links of a message's text with short links, before its parts and price are
 * counted: SMS and VK text, and the text of WHATSAPP and VIBER content. A short link can be longer than the link it
 * replaces, so the content is checked again against its channel's limits (length, SMS parts); over them, the
 * answer is the error to refuse the message with (an item error).
 */
function shorten(message: ValidMessage, base: string): { message: ValidMessage; links: ShortLink[] } | HeraldError {
  const original = message.content;
  const text = shortenableText(original);
  if (text === undefined) return { message, links: [] };
  const shortened = shortenText(text, base);
  if (shortened.links.length === 0) return { message, links: [] };
  const content = typeof original === 'string' ? shortened.text : { ...(original as object), text: shortened.text };
  let totalParts: number;
  try {
    totalParts = validateContent(message.channelType, content).totalParts;
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    return herald('invalidContentDetail', { reason: 'too long once its links are shortened' });
  }
  return { message: { ...message, content, totalParts }, links: shortened.links };
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
  // VOICECODE texts of the account's own approved templates; the matcher is cached per account.
  const voicecode = body.some((item) => isPlainObject(item) && item.channelType === 'VOICECODE');
  const matchTemplate = voicecode ? await ctx.templates.forAccount(accountId) : undefined;
  const validation = {
    now,
    isSenderNameActive,
    isArrangedVoicecode: (content: unknown) =>
      matchTemplate?.('VOICECODE', VOICECODE_SENDER_NAME, content, now) !== undefined,
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
    template_id: row.templateId,
    deadline_ms: row.deadlineAt.getTime(),
    expires_ms: row.expiresAt.getTime(),
    planned_send_ms: row.plannedSendAt!.getTime(),
    attempts: 1,
  };
}
