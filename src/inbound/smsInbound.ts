import type { SmsInbound } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { accountGet } from '../accounts/index.js';
import { callbackEventInsert } from '../callbacks/index.js';
import { messageInsertInbound, messageToApi, normaliseDestination } from '../messages/index.js';
import { uuid7 } from '../util/uuid7.js';
import { inboundNumberOwner } from './inboundNumberSql.js';
import { inboundRuleList, matchRule } from './inboundRuleSql.js';
import { trafficCenterDefault } from './trafficCenterSql.js';

/**
 * Takes inbound SMS (DESIGN 17): each belongs to the account the operator assigned its destination number to
 * (`POST /admin/v1/accounts/{id}/inbound-numbers`), stored as an inbound message (`channelType: SMS`, status
 * `inbound_sent`) in the center of the account's first matching SMS rule (the number is the rule's sender name), and
 * called back (spec 6.5) when the rule has a callback URL. Nothing is dropped: a number nobody owns keeps its
 * message in unrouted_inbounds, listed to the operator.
 */
export async function receiveSmsInbound(
  ctx: AppContext,
  connectorId: string,
  inbounds: readonly SmsInbound[],
): Promise<void> {
  for (const inbound of inbounds) await ctx.db.transaction((tx) => receiveOne(ctx, tx, connectorId, inbound));
}

async function receiveOne(ctx: AppContext, tx: Queryable, connectorId: string, inbound: SmsInbound): Promise<void> {
  const now = ctx.clock.now();
  const subscriber = normaliseDestination(inbound.from)?.msisdn ?? inbound.from.replace(/\D/g, '');
  // SMPP gives an MO no id of its own: one of Herald's makes each stored once.
  const providerId = uuid7(now.getTime());
  // Numbers are assigned as digits; an SMSC may write an international one with a `+`.
  const number = inbound.to.replace(/^\+/, '');
  const owner = await inboundNumberOwner(tx, 'SMS', number);
  if (owner === undefined) {
    await tx.query(
      `INSERT INTO unrouted_inbounds (connector_id, provider_message_id, sender_name, subscriber, text, received_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [connectorId, providerId, number, subscriber, inbound.text, now],
    );
    ctx.log.warn({ connector: connectorId, to: number }, 'inbound SMS for a number no account has; kept as unrouted');
    return;
  }
  const inboundEnabled = (await accountGet(tx, owner))?.inbound_enabled ?? false;
  const rule = inboundEnabled ? matchRule(await inboundRuleList(tx, owner), 'SMS', number) : undefined;
  const centerId = rule?.traffic_center_id ?? (await trafficCenterDefault(tx, owner, now)).id;
  const row = await messageInsertInbound(tx, {
    accountId: owner,
    id: uuid7(now.getTime()),
    at: now,
    trafficCenterId: centerId,
    senderName: number,
    subscriber,
    country: normaliseDestination(inbound.from)?.country ?? null,
    text: inbound.text,
    providerMessageId: `${connectorId}:${providerId}`,
    channelType: 'SMS',
  });
  if (!row || !rule?.callback_url) return;
  const targets = await ctx.callbackTargets.resolve(tx, owner, [rule.callback_url], now, { limited: false });
  await callbackEventInsert(tx, {
    targetId: targets.get(rule.callback_url)!,
    accountId: owner,
    messageId: row.id,
    event: 'inbound_sent',
    channelType: 'SMS',
    status: 'inbound_sent',
    at: now,
    errorCode: null,
    extra: { item: messageToApi(row) },
  });
}
