import type { AppContext, DirectRoom } from '../context.js';
import type { Queryable } from '../db/db.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import {
  insertUnsubscribeLink,
  shortenText,
  shortLinkInsert,
  type ShortLink,
  UNSUBSCRIBE_PLACEHOLDER,
} from '../links/index.js';
import { accountTakePace } from '../accounts/index.js';
import { pumpingCapped, pumpingCheck, pumpingHoldsBefore, type PumpingItem } from '../fraud/index.js';
import { countRefusals, guardAtGeneration, guardAtStore, guardOf, type GuardSettings } from '../guard/index.js';
import { fromMicros, type Micros, reserveCharges, toMicros } from '../money/index.js';
import { lookupSubscriber, type Subscriber } from '../numbering/index.js';
import { completionInstant, messageWindow, planSend } from '../schedule/index.js';
import { stopListMatch } from '../stoplists/index.js';
import type { Channel } from '../shared/channels.js';
import { mapInSlices } from '../util/turns.js';
import { uuid7 } from '../util/uuid7.js';
import { validateContent } from './channelContent.js';
import {
  DELIVERY_ERRORS,
  messageInsertBatch,
  messageOutcomes,
  messageRecordOutcomes,
  type NewMessage,
  type SendingMethod,
  type ValidMessage,
  whatsappWindowsOpenOf,
} from '../messages/index.js';
import { shortenableText, UNSUBSCRIBE_NEEDS_SHORTENER } from './validateMessage.js';

/*
 * Generation of valid messages, shared by sends and by the steps of cascades: the checks that depend on the
 * account and the moment (channel enabled, WhatsApp chat rules, tariff), link shortening, the plan, and then, in
 * the caller's transaction, callback targets, reserved funds and the rows.
 */

/** Who sends: the account and how it sends. */
export interface Sender {
  readonly accountId: number;
  /** The account's currency. */
  readonly currency: string;
  readonly trafficCenterId: number | null;
  readonly sendingMethod: SendingMethod;
  /** The operator capped the account's rate (maxRate): its messages take send slots (accountTakePace). */
  readonly paced?: boolean;
  /** The account's effective fraud guard and consent settings (guardOf: the defaults when absent). */
  readonly guard?: GuardSettings;
}

/** A message to generate, with its place in a cascade if it is a step of one. */
export interface MessageToGenerate {
  readonly message: ValidMessage;
  readonly cascade?: { readonly id: string; readonly step: number } | undefined;
  /** The message's id, when it is given (a cascade's first step is the cascade's id); else a new one. */
  readonly id?: string;
  /** The dispatch it belongs to: held, never due, until the dispatch starts (which plans it). */
  readonly dispatchId?: string;
  /**
   * Whether a message of a dispatch is held (default: yes). A later step of a dispatch's cascade is held only while
   * its dispatch is paused; otherwise it is planned as any message, when its previous step ends.
   */
  readonly held?: boolean;
  /** A message Herald sends on the account's behalf and at its own cost (an opt-out's confirmation): not priced. */
  readonly free?: boolean;
}

/** A valid message on its way to being stored: content after link shortening, price, plan. */
export interface Candidate {
  readonly id: string;
  readonly message: ValidMessage;
  readonly subscriber: Subscriber;
  readonly plannedSendAt: Date | null;
  readonly deadlineAt: Date;
  readonly expiresAt: Date;
  readonly links: readonly ShortLink[];
  readonly charge: { amount: Micros; currency: string } | null;
  readonly templateId: number | null;
  readonly cascade: { readonly id: string; readonly step: number } | undefined;
  readonly dispatchId: string | undefined;
  /** Never due until its dispatch plans it. */
  readonly held: boolean;
  /** Sent to a country the geo rule monitors: counted (4035, monitored) when stored. */
  readonly monitored?: boolean;
}

/** A new message id for `now`: a version 7 UUID, time-ordered. */
export const newMessageId = (now: Date): string => uuid7(now.getTime());

/**
 * Messages prepared between turns of the event loop: planning 1000 sends with a send time days ahead took 90-100 ms
 * of one block (planSend walks the window in the subscriber's zones); 100 take under 10 ms.
 */
const PREPARE_SLICE = 100;

/**
 * Checks and prepares messages in order: each becomes a candidate or the error to refuse it with. `channels`: the
 * account's enabled channels (undefined: checked already). Then the guard's checks of generation (geo, consent).
 */
export async function prepareMessages(
  ctx: AppContext,
  db: Queryable,
  sender: Sender,
  messages: readonly MessageToGenerate[],
  channels: Readonly<Record<Channel, boolean>> | undefined,
  now: Date,
): Promise<(Candidate | HeraldError)[]> {
  // A transaction (a cascade's next step is created in the one recording an outcome) reads the caches through itself.
  const within = db === ctx.db ? undefined : db;
  await ctx.tariffs.refresh(within);
  const matchTemplate = await ctx.templates.forAccount(sender.accountId, within);
  const whatsapp = messages
    .filter((m) => m.message.channelType === 'WHATSAPP')
    .map((m): [string, string] => [m.message.senderName, m.message.destination]);
  const windows = await whatsappWindowsOpenOf(db, sender.accountId, whatsapp, now);
  const prepared = await mapInSlices(
    messages,
    PREPARE_SLICE,
    ({ message: original, cascade, id, dispatchId, held: heldAsked }, i) => {
      const held = dispatchId !== undefined && heldAsked !== false;
      if (channels && !channels[original.channelType])
        return herald('channelNotEnabled', { channelType: original.channelType });
      const templateId = matchTemplate(original.channelType, original.senderName, original.content, now) ?? null;
      // WhatsApp chat rules (spec 2.2): outside the 24-hour window only content matching an approved template.
      if (
        original.channelType === 'WHATSAPP' &&
        templateId === null &&
        !windows.has(`${original.senderName}\u0000${original.destination}`)
      )
        return herald('noActiveTemplate');
      const shortened = withLinks(original, ctx.config.shortUrlBase);
      if (shortened instanceof HeraldError) return shortened;
      const { message, links } = shortened;
      const free = messages[i]!.free === true;
      const price = free
        ? undefined
        : ctx.tariffs.lookup(sender.accountId, message.channelType, message.destination, message.country);
      if (!price && !free && ctx.config.requireTariff)
        return herald('noTariff', { channelType: message.channelType, destination: message.destination });
      const subscriber = lookupSubscriber(ctx.plan, message.destination, message.country);
      const window = messageWindow(message, subscriber.zones);
      // A dispatch's message is planned when its dispatch starts (no planned time until then: it depends on the start
      // and the speed); until then it keeps only its completion deadline.
      const completion = held ? completionInstant(window) : undefined;
      const plan = !held
        ? planSend(window, now.getTime())
        : { plannedSendAt: null, deadlineAt: new Date(completion ?? HELD_UNTIL), expiresAt: new Date(HELD_UNTIL) };
      return {
        id: id ?? newMessageId(now),
        message,
        subscriber,
        plannedSendAt: plan.plannedSendAt,
        deadlineAt: plan.deadlineAt,
        expiresAt: plan.expiresAt,
        links,
        charge: price
          ? { amount: toMicros(price.perPart) * BigInt(message.totalParts), currency: price.currency }
          : null,
        templateId,
        cascade,
        dispatchId,
        held,
      };
    },
  );
  return guardAtGeneration(db, sender.accountId, guardOf(sender), prepared, now);
}

/** The deadline and lifetime of a held message before its dispatch plans it: none. */
const HELD_UNTIL = Date.parse('9999-12-31T00:00:00Z');

export interface StoreOptions {
  /** How many due messages may be stored leased to this process's submitter (the fast lane). */
  readonly directRoom: DirectRoom;
  readonly leaseUntil: Date;
  /** Whether new callback URLs count against the account's daily limit (not for URLs admitted before). */
  readonly limitCallbackUrls: boolean;
  /** The currencies the batch's earlier slices ran out of: refused here too (see reserveCharges). */
  readonly exhausted?: Set<string>;
}

/**
 * Stores candidates in the caller's transaction: the stop lists first, then callback URLs (a message over the
 * account's daily limit of new URLs is refused and reserves nothing), the guard's counts, funds, pumping holds, then
 * the rows and their short links. Returns, in order,
 * each candidate's stored row or the error it was refused with.
 */
export async function storeMessages(
  tx: Queryable,
  ctx: AppContext,
  sender: Sender,
  candidates: readonly Candidate[],
  now: Date,
  options: StoreOptions,
): Promise<(NewMessage | HeraldError)[]> {
  if (candidates.length === 0) return [];
  // The stop lists first (DESIGN 20: 4032, nothing reserved, no new callback URL counted), read in this transaction
  // rather than by a statement of their own before it: on PGlite every statement outside a transaction waits for the
  // one running (another account's batch), and a number listed meanwhile is seen.
  const listed = await stopListMatch(
    tx,
    sender.accountId,
    candidates.map((c) => c.message),
  );
  ctx.metrics.stopListedAtGeneration += listed.filter(Boolean).length;
  const urls = candidates.flatMap((c, i) => (c.message.callbackUrl && !listed[i] ? [c.message.callbackUrl] : []));
  const targets = await ctx.callbackTargets.resolve(tx, sender.accountId, urls, now, {
    limited: options.limitCallbackUrls,
  });
  const reachable = candidates.map(
    (c, i) => !listed[i] && (c.message.callbackUrl === null || targets.has(c.message.callbackUrl)),
  );
  const settings = guardOf(sender);
  const pumping = pumpingCapped(settings.pumping, ctx.config.pumpingMode);
  // Pumping (fraud/): a burst's messages wait in a hold. A dispatch's messages are not counted: a mailing the client
  // creates and then starts, whose messages are planned by the start, not here. The account's holds are read before
  // the counts are locked.
  const pumped = (i: number): PumpingItem | undefined => (candidates[i]!.held ? undefined : candidates[i]!.message);
  const holdsBefore = await pumpingHoldsBefore(
    tx,
    sender.accountId,
    pumping,
    candidates.map((_, i) => (reachable[i] ? pumped(i) : undefined)),
    now,
  );
  // The guard and pumping count the batch exactly by the locks of the rows they count in (guardAtStore,
  // pumpingCheck), not by a lock of the account: racing batches of one account wait only where they meet.
  const guard = await guardAtStore(tx, sender.accountId, settings, candidates, reachable, now);
  const charges = candidates.map((c, i) => (reachable[i] && !guard.refused[i] ? c.charge : null));
  const taken = await reserveCharges(
    tx,
    sender.accountId,
    charges,
    now,
    `batch ${candidates[0]!.id}`,
    options.exhausted,
  );
  const stored = (i: number): boolean => reachable[i]! && !guard.refused[i] && taken[i]!;
  const holds = await pumpingCheck(
    tx,
    ctx,
    sender.accountId,
    pumping,
    candidates.map((_, i) => (stored(i) ? pumped(i) : undefined)),
    holdsBefore,
    now,
  );
  const paced = sender.paced ? await pace(tx, sender.accountId, candidates, (i) => stored(i) && !holds[i], now) : [];
  // The brand of a ported number is its new operator's (DESIGN 21), read in this transaction as the stop lists are.
  const ported = await ctx.ported.brands(
    tx,
    candidates.filter((_, i) => stored(i)).map((c) => c.message.destination),
  );
  const results = candidates.map((c, i): NewMessage | HeraldError => {
    if (listed[i]) return herald('stopListed');
    if (!reachable[i]) return herald('callbackUrlLimit', { limit: ctx.config.callbackUrlsPerDay });
    if (guard.refused[i]) return guard.refused[i];
    if (!taken[i]) return herald('insufficientFunds');
    const plannedSendAt = paced[i] ?? c.plannedSendAt;
    const fraudHoldId = holds[i];
    const leased =
      !c.held &&
      fraudHoldId === undefined &&
      plannedSendAt !== null &&
      plannedSendAt.getTime() <= now.getTime() &&
      options.directRoom.take(c.message.channelType, isUrgent(c));
    return {
      id: c.id,
      message: c.message,
      subscriber: withPortedBrand(c.subscriber, ported.get(c.message.destination)),
      plannedSendAt,
      deadlineAt: c.deadlineAt,
      expiresAt: c.expiresAt,
      leased,
      price: c.charge ? fromMicros(c.charge.amount) : '0',
      currency: c.charge?.currency ?? sender.currency,
      callbackTargetId: c.message.callbackUrl ? targets.get(c.message.callbackUrl)! : null,
      templateId: c.templateId,
      cascade: c.cascade,
      dispatchId: c.dispatchId,
      held: c.held,
      fraudHoldId,
    };
  });
  await guard.record(results.map((r) => !(r instanceof HeraldError)));
  // Counted with what is stored, in its transaction: a batch that fails and is sent again is counted once.
  const monitored = candidates.flatMap((c, i) =>
    c.monitored && !(results[i] instanceof HeraldError)
      ? [{ channelType: c.message.channelType, code: 4035, monitored: true }]
      : [],
  );
  await countRefusals(tx, ctx.metrics.refusals, sender.accountId, monitored, now);
  const rows = results.filter((r): r is NewMessage => !(r instanceof HeraldError));
  if (rows.length > 0) {
    await messageInsertBatch(tx, {
      accountId: sender.accountId,
      trafficCenterId: sender.trafficCenterId,
      sendingMethod: sender.sendingMethod,
      currency: sender.currency,
      now,
      leaseUntil: options.leaseUntil,
      messages: rows,
    });
    await shortLinkInsert(
      tx,
      sender.accountId,
      candidates
        .filter((_, i) => !(results[i] instanceof HeraldError))
        .flatMap((c) => c.links.map((l) => ({ messageId: c.id, ...l }))),
      now,
    );
  }
  return results;
}

/**
 * Stores messages refused when they were to be generated (a later step of a cascade: no funds, no tariff, a closed
 * WhatsApp window) as what they are: unsent at once, free, with the refusal's code and their callbacks. Nothing was
 * reserved for them: their one price event is the final 0 that comes with the unsent status (DESIGN 12: no duplicate).
 */
export async function storeRefused(
  tx: Queryable,
  ctx: AppContext,
  sender: Sender,
  refused: readonly { readonly item: MessageToGenerate & { readonly id: string }; readonly error: HeraldError }[],
  now: Date,
): Promise<void> {
  if (refused.length === 0) return;
  const urls = refused.flatMap((r) => (r.item.message.callbackUrl ? [r.item.message.callbackUrl] : []));
  const targets = await ctx.callbackTargets.resolve(tx, sender.accountId, urls, now, { limited: false });
  const ported = await ctx.ported.brands(
    tx,
    refused.map((r) => r.item.message.destination),
  );
  await messageInsertBatch(tx, {
    accountId: sender.accountId,
    trafficCenterId: sender.trafficCenterId,
    sendingMethod: sender.sendingMethod,
    currency: sender.currency,
    reserved: false,
    now,
    leaseUntil: now,
    messages: refused.map(({ item: { id, message, cascade } }) => ({
      id,
      message,
      subscriber: withPortedBrand(
        lookupSubscriber(ctx.plan, message.destination, message.country),
        ported.get(message.destination),
      ),
      plannedSendAt: null,
      deadlineAt: now,
      expiresAt: now,
      leased: false,
      price: '0',
      currency: sender.currency,
      callbackTargetId: message.callbackUrl ? (targets.get(message.callbackUrl) ?? null) : null,
      templateId: null,
      cascade,
    })),
  });
  await messageRecordOutcomes(
    tx,
    messageOutcomes({
      statuses: refused.map(({ item, error }) => ({
        accountId: sender.accountId,
        id: item.id,
        status: 'unsent',
        at: now,
        errorCode: unsentCodeOf(error),
        detail: error.message,
      })),
    }),
    [],
  );
}

/** A subscriber with the brand of the operator its number was ported to, if it was. */
const withPortedBrand = (subscriber: Subscriber, brand: string | undefined): Subscriber =>
  brand === undefined ? subscriber : Object.assign({}, subscriber, { brand });

/** The error code a message refused at its creation is stored unsent with: a stop list's as the real service's. */
const unsentCodeOf = (error: HeraldError): number =>
  error.errorName === 'stopListed' ? DELIVERY_ERRORS.stopListed : error.code;

const isUrgent = (c: Candidate): boolean =>
  c.message.trafficType === 'AUTHORIZE' || c.message.trafficType === 'TRANSACT';

/**
 * The send times of a paced account's messages (see accountTakePace): urgent ones as planned, the others one
 * slot apart, each no earlier than its own plan. A dispatch's messages are paced when it starts.
 */
async function pace(
  tx: Queryable,
  accountId: number,
  candidates: readonly Candidate[],
  stored: (i: number) => boolean,
  now: Date,
): Promise<(Date | null | undefined)[]> {
  const going = candidates.map((c, i) => stored(i) && !c.held && c.plannedSendAt !== null);
  const urgent = candidates.filter((c, i) => going[i] && isUrgent(c)).length;
  const bulk = going.filter(Boolean).length - urgent;
  const slots = await accountTakePace(tx, accountId, urgent, bulk, now);
  if (!slots) return [];
  let n = 0;
  return candidates.map((c, i) => {
    if (!going[i] || isUrgent(c)) return undefined;
    const slot = slots.firstBulkAt.getTime() + n++ * slots.spacingMs;
    return new Date(Math.max(slot, c.plannedSendAt!.getTime()));
  });
}

/** Counts accepted messages per channel, for the metrics. */
export function countAccepted(ctx: AppContext, stored: readonly NewMessage[]): void {
  const byChannel = new Map<string, number>();
  for (const row of stored) byChannel.set(row.message.channelType, (byChannel.get(row.message.channelType) ?? 0) + 1);
  for (const [channel, n] of byChannel) ctx.metrics.messagesAccepted.inc({ channel }, n);
}

/**
 * Replaces the links of a message's text with short links when it asks for them (`shortUrl`), then its
 * `{unsubscribe}` with its unsubscribe link (DESIGN 20), before its parts and price are counted: SMS and VK text, and
 * the text of WHATSAPP, VIBER and TELEGRAM content. A short link can be longer than what it replaces, so the content
 * is checked again against its channel's limits (length, SMS parts); over them, the answer is the error to refuse the
 * message with (an item error).
 */
function withLinks(
  message: ValidMessage,
  base: string | undefined,
): { message: ValidMessage; links: ShortLink[] } | HeraldError {
  const original = message.content;
  const text = shortenableText(original);
  if (text === undefined) return { message, links: [] };
  const shortened = message.shortUrl && base !== undefined ? shortenText(text, base) : { text, links: [] };
  let replaced = shortened.text;
  const links: ShortLink[] = [...shortened.links];
  if (text.includes(UNSUBSCRIBE_PLACEHOLDER)) {
    // Validation refused it already without a shortener; a cascade's later step may meet a restart without one.
    if (base === undefined) return herald('invalidContentDetail', { reason: UNSUBSCRIBE_NEEDS_SHORTENER });
    const unsubscribe = insertUnsubscribeLink(replaced, base);
    replaced = unsubscribe.text;
    if (unsubscribe.link) links.push(unsubscribe.link);
  }
  if (links.length === 0) return { message, links: [] };
  const content = typeof original === 'string' ? replaced : Object.assign({}, original as object, { text: replaced });
  let totalParts: number;
  try {
    totalParts = validateContent(message.channelType, content).totalParts;
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    return herald('invalidContentDetail', { reason: 'too long once its links are shortened' });
  }
  return { message: Object.assign({}, message, { content, totalParts }), links };
}
