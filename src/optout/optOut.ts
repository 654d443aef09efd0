import { accountGet } from '../accounts/index.js';
import { type AppContext, NO_DIRECT_ROOM } from '../context.js';
import type { Queryable } from '../db/db.js';
import { HeraldError } from '../errors/catalogue.js';
import type { NewMessage, ValidMessage } from '../messages/index.js';
import { handOver, prepareMessages, type Sender, storeMessages, validateContent } from '../sending/index.js';
import type { Channel } from '../shared/channels.js';
import type { TrafficType } from '../shared/trafficTypes.js';
import { type NewStopEntry, stopListAdd } from '../stoplists/index.js';
import { DEFAULT_KEYWORDS, matchKeyword, mayBeKeyword } from './keywords.js';
import { optOutSettingGet } from './optOutSettingSql.js';

/**
 * What a subscriber opts out of (DESIGN 20): promotions and service messages. An authorisation code or a
 * transaction notice still goes.
 */
export const OPTED_OUT_TRAFFIC: readonly TrafficType[] = ['PROMO', 'SERVICE'];

/** A subscriber's inbound message, as the opt-out reads it. */
export interface InboundText {
  readonly channel: (typeof INBOUND_CHANNELS)[number];
  readonly accountId: number;
  /** The sender name written to; null for an SMS to an inbound number: the opt-out covers every sender name. */
  readonly senderName: string | null;
  /** Where a reply comes from: the sender name written to, or the inbound number. */
  readonly replyFrom: string;
  /** E.164 digits. */
  readonly subscriber: string;
  readonly country: string | null;
  readonly text: string;
  readonly at: Date;
}

/** An opt-out made in a transaction; {@link optOutCommitted} hands its reply over once the transaction commits. */
export interface OptOut {
  readonly accountId: number;
  readonly keyword: string;
  /** The confirmation stored, if the account has one and it could be sent. */
  readonly reply: NewMessage | undefined;
}

/**
 * Lists the subscriber when the whole inbound text is one of the account's keywords (default DEFAULT_KEYWORDS), in
 * the caller's transaction: the account's list, source `keyword`, scoped to the inbound's channel and sender name
 * (none for an SMS to an inbound number) and to {@link OPTED_OUT_TRAFFIC}; and, when that listed them, stores the
 * account's confirmation reply, free, on the same channel and sender name. Undefined when the text is no keyword.
 * The inbound itself is stored and called back as any other by the caller.
 */
export async function optOutByKeyword(
  ctx: AppContext,
  tx: Queryable,
  inbound: InboundText,
): Promise<OptOut | undefined> {
  // Most inbound messages are sentences: no keyword, and no read of the settings.
  if (!mayBeKeyword(inbound.text)) return undefined;
  const settings = await optOutSettingGet(tx, inbound.accountId);
  const keyword = matchKeyword(inbound.text, settings?.keywords ?? DEFAULT_KEYWORDS);
  if (keyword === undefined) return undefined;
  const added = await optOutList(tx, inbound.accountId, {
    number: inbound.subscriber,
    channelType: inbound.channel,
    senderName: inbound.senderName,
    source: 'keyword',
    comment: `keyword ${keyword}`,
    at: inbound.at,
  });
  if (added) ctx.metrics.optOuts.inc({ source: 'keyword', channel: inbound.channel });
  // Once per opt-out: a subscriber who writes the keyword again is listed already, and gets no reply again.
  const reply = settings?.reply && added ? await storeReply(ctx, tx, inbound, settings.reply) : undefined;
  return { accountId: inbound.accountId, keyword, reply };
}

/** After the commit of an opt-out's transaction: its reply goes to the submitter. */
export function optOutCommitted(ctx: AppContext, optOut: OptOut | undefined): void {
  if (optOut?.reply) handOver(ctx, [optOut.reply], optOut.accountId, NO_DIRECT_ROOM);
}

/** A subscriber's opt-out, as listed. */
export interface OptOutEntry {
  readonly number: string;
  readonly channelType: Channel;
  /** Null: every sender name of the account. */
  readonly senderName: string | null;
  readonly source: 'keyword' | 'link';
  readonly comment: string;
  readonly at: Date;
}

/**
 * Lists a subscriber on the account's list, scoped as every opt-out is. Idempotent: false when the subscriber was
 * listed so already.
 */
export async function optOutList(tx: Queryable, accountId: number, entry: OptOutEntry): Promise<boolean> {
  const stop: NewStopEntry = {
    number: entry.number,
    channelType: entry.channelType,
    senderName: entry.senderName,
    trafficTypes: OPTED_OUT_TRAFFIC,
    source: entry.source,
    comment: entry.comment,
  };
  return (await stopListAdd(tx, accountId, [stop], entry.at)) > 0;
}

/**
 * Stores the confirmation reply as a TRANSACT message (the subscriber's own opt-out does not stop it), free: not
 * priced, nothing reserved, price 0. A reply the generation refuses (a closed channel, a flood filter) is not sent:
 * the opt-out stands without it.
 */
async function storeReply(
  ctx: AppContext,
  tx: Queryable,
  inbound: InboundText,
  text: string,
): Promise<NewMessage | undefined> {
  const account = await accountGet(tx, inbound.accountId);
  if (!account || account.status !== 'active') return undefined;
  let valid: ValidMessage;
  try {
    const { content, totalParts } = validateContent(inbound.channel, replyContent(inbound.channel, text));
    valid = { ...REPLY_FIELDS, ...inboundAddress(inbound), content, totalParts };
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    ctx.log.warn({ account: inbound.accountId, err: error }, 'opt-out reply is not valid content; not sent');
    return undefined;
  }
  const sender: Sender = {
    accountId: inbound.accountId,
    currency: account.currency,
    trafficCenterId: null,
    sendingMethod: 'API',
  };
  const [prepared] = await prepareMessages(ctx, tx, sender, [{ message: valid, free: true }], undefined, inbound.at);
  const [stored] =
    prepared instanceof HeraldError || prepared === undefined
      ? [prepared]
      : await storeMessages(tx, ctx, sender, [prepared], inbound.at, {
          directRoom: NO_DIRECT_ROOM,
          leaseUntil: inbound.at,
          limitCallbackUrls: false,
        });
  if (stored instanceof HeraldError || stored === undefined) {
    ctx.log.info({ account: inbound.accountId, code: stored?.code }, 'opt-out reply refused; not sent');
    return undefined;
  }
  return stored;
}

/** The channels a subscriber can write to, each a reply's channel. */
export const INBOUND_CHANNELS = ['SMS', 'WHATSAPP', 'TELEGRAM'] as const;

/** A reply's text as the content of its channel: SMS takes the text itself, WHATSAPP and TELEGRAM a text object. */
export function replyContent(channel: InboundText['channel'], text: string): unknown {
  return channel === 'SMS' ? text : { contentType: 'text', text };
}

const inboundAddress = (inbound: InboundText) => ({
  channelType: inbound.channel,
  senderName: inbound.replyFrom,
  destination: inbound.subscriber,
  country: inbound.country,
});

/** A reply's fields besides its address and content: sent at once, whatever the hour, no callback. */
const REPLY_FIELDS = {
  tags: [],
  useLocalTime: false,
  localSendTime: null,
  localCompletionTime: null,
  ttl: null,
  hours: null,
  days: null,
  shortUrl: false,
  callbackUrl: null,
  callbackEvents: null,
  externalMessageId: null,
  trafficType: 'TRANSACT',
} as const satisfies Partial<ValidMessage>;
