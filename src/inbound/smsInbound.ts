import type { SmsInbound } from '../connectors/index.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { accountGet, trafficCenterDefault } from '../accounts/index.js';
import { callbackEventInsert, SMPP_BINDS_URL } from '../callbacks/index.js';
import { type MessageRow, messageInsertInbound, messageToApi } from '../messages/index.js';
import { type OptOut, optOutByKeyword, optOutCommitted } from '../optout/index.js';
import { normaliseDestination } from '../numbering/index.js';
import { uuid7 } from '../util/uuid7.js';
import { inboundNumberOwner } from './inboundNumberSql.js';
import { normaliseInboundNumber } from './inboundNumbers.js';
import { inboundRuleList, matchRule } from './inboundRuleSql.js';
import { smsPartsHandOn, smsPartTake } from './smsParts.js';
import { smsPartsLock, smsPartsOverdue, smsPartsWaiting } from './smsPartSql.js';
import { unroutedInboundInsert } from './unroutedInboundSql.js';

/**
 * Takes inbound SMS (DESIGN 17): each belongs to the account the operator assigned its destination number to
 * (`POST /admin/v1/accounts/{id}/inbound-numbers`), stored as an inbound message (`channelType: SMS`, status
 * `inbound_sent`) in the center of the account's first matching SMS rule (the number is the rule's sender name), and
 * called back (spec 6.5) when the rule has a callback URL. Nothing is dropped: a number nobody owns keeps its
 * message in unrouted_inbounds, listed to the operator. A part of a long SMS is kept in inbound_sms_parts
 * ({@link smsPartTake}) and the message stored with its last part, in the same transaction: once this resolves, the
 * SMSC may be answered, and a restart loses nothing.
 */
export async function receiveSmsInbound(
  ctx: AppContext,
  connectorId: string,
  inbounds: readonly SmsInbound[],
): Promise<void> {
  for (const inbound of inbounds) {
    const optOuts = await ctx.db.transaction(async (tx) => {
      const { part } = inbound;
      // A part numbered outside its count could never complete its message: it is stored as it is.
      if (!part || part.total < 2 || part.sequence < 1 || part.sequence > part.total)
        return [await receiveOne(ctx, tx, connectorId, inbound)];
      const key = { connectorId, sender: inbound.from, recipient: inbound.to, ...part };
      const ready = await smsPartTake(tx, key, { partNumber: part.sequence, text: inbound.text, at: inbound.at });
      const made: (OptOut | undefined)[] = [];
      for (const whole of ready)
        made.push(await receiveOne(ctx, tx, connectorId, Object.assign({}, inbound, { text: whole.text }), part.total));
      return made;
    });
    for (const optOut of optOuts) optOutCommitted(ctx, optOut);
  }
}

/**
 * Stores, as they are, the long inbound SMS whose first waiting part arrived before `before` (their other parts never
 * came), up to `limit` of them; returns how many. Each in its own transaction, under its parts' lock: a part that
 * arrives meanwhile either completes the message first or waits for the next.
 */
export async function smsPartsSweepOverdue(ctx: AppContext, before: Date, limit: number): Promise<number> {
  const overdue = await smsPartsOverdue(ctx.db, before, limit);
  for (const key of overdue) {
    const optOut = await ctx.db.transaction(async (tx) => {
      await smsPartsLock(tx, key);
      const waiting = await smsPartsWaiting(tx, key);
      const first = Math.min(...waiting.map((p) => p.received_at.getTime()));
      if (waiting.length === 0 || first >= before.getTime()) return undefined;
      const whole = await smsPartsHandOn(tx, key, ctx.clock.now(), waiting);
      ctx.log.warn(
        { connector: key.connectorId, from: key.sender, to: key.recipient, parts: whole.parts, of: key.total },
        'long inbound SMS stored without its missing parts',
      );
      return receiveOne(
        ctx,
        tx,
        key.connectorId,
        { from: key.sender, to: key.recipient, text: whole.text, at: ctx.clock.now() },
        key.total,
      );
    });
    optOutCommitted(ctx, optOut);
  }
  return overdue.length;
}

/**
 * Stores one whole inbound SMS of `totalParts` parts (1 unless it was a long one). A keyword opts its subscriber out
 * of every sender name of the account (DESIGN 20); the opt-out is returned, for optOutCommitted after the commit.
 */
async function receiveOne(
  ctx: AppContext,
  tx: Queryable,
  connectorId: string,
  inbound: SmsInbound,
  totalParts = 1,
): Promise<OptOut | undefined> {
  const now = ctx.clock.now();
  const subscriber = normaliseDestination(inbound.from)?.msisdn ?? inbound.from.replace(/\D/g, '');
  // SMPP gives an MO no id of its own: one of Herald's makes each stored once.
  const providerId = uuid7(now.getTime());
  // Numbers are assigned normalised; an SMSC may write one with a `+` or in a national form. As written too: a number
  // assigned before assignments were normalised keeps its SMS.
  const written = inbound.to.replace(/^\+/, '');
  const normalised = normaliseInboundNumber(inbound.to) ?? written;
  const owned = await inboundNumberOwner(tx, 'SMS', [normalised, written]);
  if (owned === undefined) {
    await unroutedInboundInsert(tx, {
      connectorId,
      providerMessageId: providerId,
      senderName: normalised,
      subscriber,
      text: inbound.text,
      at: now,
    });
    ctx.log.warn(
      { connector: connectorId, to: normalised },
      'inbound SMS for a number no account has; kept as unrouted',
    );
    return undefined;
  }
  const { accountId: owner, number } = owned;
  const account = (await accountGet(tx, owner))!;
  const inboundEnabled = account.inbound_enabled;
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
    currency: account.currency,
    totalParts,
  });
  if (!row) return undefined;
  if (rule?.callback_url) await callBack(ctx, tx, rule.callback_url, row, now);
  // inboundVia ["smpp"]: also to the account's SMPP binds as deliver_sm (smppServer/, DESIGN 22).
  if (inboundEnabled && account.inbound_via.includes('smpp')) await callBack(ctx, tx, SMPP_BINDS_URL, row, now);
  return optOutByKeyword(ctx, tx, {
    channel: 'SMS',
    accountId: owner,
    senderName: null,
    replyFrom: number,
    subscriber,
    country: row.country,
    text: inbound.text,
    at: now,
  });
}

/** Raises the inbound callback of spec 6.5 for a stored inbound SMS. */
async function callBack(ctx: AppContext, tx: Queryable, url: string, row: MessageRow, now: Date): Promise<void> {
  const owner = row.account_id;
  const targets = await ctx.callbackTargets.resolve(tx, owner, [url], now, { limited: false });
  await callbackEventInsert(tx, {
    targetId: targets.get(url)!,
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
