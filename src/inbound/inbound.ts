import type { InboundMessage } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { type MessageRow, messageInsertInbound, messageToApi, whatsappWindowOpen } from '../messages/index.js';
import { normaliseDestination } from '../numbering/index.js';
import { callbackEventInsert } from '../callbacks/index.js';
import { type OptOut, optOutByKeyword, optOutCommitted } from '../optout/index.js';
import { accountGet, trafficCenterDefault } from '../accounts/index.js';
import { senderNameWhatsappOwner, whatsappNumberOf } from '../senderNames/index.js';
import { uuid7 } from '../util/uuid7.js';
import { inboundRuleList, matchRule } from './inboundRuleSql.js';
import { unroutedInboundInsert } from './unroutedInboundSql.js';

/**
 * Takes inbound WhatsApp messages: each belongs to the one account whose approved WHATSAPP sender name is exactly
 * the number or name it was written to (see senderNameWhatsappOwner), stored as an inbound message (`direction:
 * inbound`, status `inbound_sent`) in the center of the first matching rule (or the default center), opens the
 * 24-hour window for (account, sender name, subscriber), and, when the rule has a callback URL, raises the inbound
 * callback of spec 6.5 through the outbox; a keyword opts its subscriber out (DESIGN 20). Nothing is dropped: a
 * message no account claims is kept in unrouted_inbounds; one for an account without inbound enabled is stored
 * without a callback. A webhook sent again stores nothing twice.
 */
export async function receiveInbound(
  ctx: AppContext,
  connectorId: string,
  inbounds: readonly InboundMessage[],
): Promise<void> {
  for (const inbound of inbounds) {
    const stored = await ctx.db.transaction((tx) => receiveOne(ctx, tx, connectorId, inbound));
    optOutCommitted(ctx, stored?.optOut);
  }
}

async function receiveOne(
  ctx: AppContext,
  tx: Queryable,
  connectorId: string,
  inbound: InboundMessage,
): Promise<StoredInbound | undefined> {
  const now = ctx.clock.now();
  const senderName = inbound.displayName ?? '';
  const subscriber = normaliseDestination(inbound.from)?.msisdn ?? inbound.from.replace(/\D/g, '');
  // Matched exactly, on the number written to (or the connector's phone number id); one owner at most.
  const numbers = [inbound.displayName, inbound.phoneNumberId].filter((n): n is string => !!n).map(whatsappNumberOf);
  const owner = await senderNameWhatsappOwner(tx, numbers);
  if (!owner) {
    await unroutedInboundInsert(tx, {
      connectorId,
      providerMessageId: inbound.id,
      senderName: senderName || null,
      subscriber,
      text: inbound.text,
      at: now,
    });
    ctx.log.warn(
      { connector: connectorId, senderName },
      'inbound message for a sender name no account has; kept as unrouted',
    );
    return undefined;
  }
  return storeInbound(ctx, tx, {
    channel: 'WHATSAPP',
    accountId: owner.account_id,
    senderName: owner.name,
    subscriber,
    country: normaliseDestination(inbound.from)?.country ?? null,
    text: inbound.text,
    providerMessageId: `${connectorId}:${inbound.id}`,
    at: now,
  });
}

/** A subscriber's message to one of an account's sender names, its account known (WhatsApp, TELEGRAM). */
export interface ChannelInbound {
  readonly channel: 'WHATSAPP' | 'TELEGRAM';
  readonly accountId: number;
  readonly senderName: string;
  /** E.164 digits. */
  readonly subscriber: string;
  readonly country: string | null;
  readonly text: string;
  /** Unique per provider message (`connector:id`): a webhook sent again stores nothing twice. */
  readonly providerMessageId: string;
  readonly at: Date;
}

/** An inbound message stored, and the opt-out it made if it was a keyword (hand it over after the commit). */
export interface StoredInbound {
  readonly row: MessageRow;
  readonly optOut: OptOut | undefined;
}

/**
 * Stores an inbound message in the center of the first inbound rule that matches it (or the account's default
 * center) and, when that rule has a callback URL, raises the inbound callback of spec 6.5 through the outbox; none for
 * an account without inbound enabled. A WhatsApp message opens its chat window. A keyword lists its subscriber
 * (optOutByKeyword); the caller calls optOutCommitted after the commit. Undefined when the provider sent it before.
 */
export async function storeInbound(
  ctx: AppContext,
  tx: Queryable,
  inbound: ChannelInbound,
): Promise<StoredInbound | undefined> {
  const { accountId, at: now } = inbound;
  const account = (await accountGet(tx, accountId))!;
  const rule = account.inbound_enabled
    ? matchRule(await inboundRuleList(tx, accountId), inbound.channel, inbound.senderName)
    : undefined;
  const centerId = rule?.traffic_center_id ?? (await trafficCenterDefault(tx, accountId, now)).id;
  const row = await messageInsertInbound(tx, {
    accountId,
    id: uuid7(now.getTime()),
    at: now,
    trafficCenterId: centerId,
    senderName: inbound.senderName,
    subscriber: inbound.subscriber,
    country: inbound.country,
    text: inbound.text,
    providerMessageId: inbound.providerMessageId,
    currency: account.currency,
    channelType: inbound.channel,
  });
  if (!row) return undefined; // The provider sent this webhook before.
  if (rule?.callback_url) {
    const targets = await ctx.callbackTargets.resolve(tx, accountId, [rule.callback_url], now, {
      limited: false,
    });
    await callbackEventInsert(tx, {
      targetId: targets.get(rule.callback_url)!,
      accountId,
      messageId: row.id,
      event: 'inbound_sent',
      channelType: inbound.channel,
      status: 'inbound_sent',
      at: now,
      errorCode: null,
      extra: { item: messageToApi(row) },
    });
  }
  if (inbound.channel === 'WHATSAPP')
    await whatsappWindowOpen(tx, accountId, inbound.senderName, inbound.subscriber, now);
  const optOut = await optOutByKeyword(ctx, tx, {
    channel: inbound.channel,
    accountId,
    senderName: inbound.senderName,
    replyFrom: inbound.senderName,
    subscriber: inbound.subscriber,
    country: inbound.country,
    text: inbound.text,
    at: now,
  });
  return { row, optOut };
}
