import { accountTakePace } from '../accounts/index.js';
import { type AppContext, NO_DIRECT_ROOM } from '../context.js';
import { herald, HeraldError, showValue } from '../errors/catalogue.js';
import type { Principal } from '../http/auth.js';
import {
  type Candidate,
  type DispatchCount,
  DELIVERY_ERRORS,
  messageDispatchCounts,
  messageDispatchHold,
  messageDispatchSchedule,
  messageDispatchStop,
  newMessageId,
  type NewMessage,
  normaliseDestination,
  prepareMessages,
  senderOf,
  storeMessages,
  validateMessage,
  validationContext,
  type ValidMessage,
} from '../messages/index.js';
import { enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { type DispatchRow, dispatchGet, dispatchInsert, dispatchSetStatus, type Speed } from './dispatchSql.js';

/** A dispatch's statuses in the API. */
export const STATUSES = ['initiated', 'scheduled', 'sending', 'awaiting', 'done', 'paused', 'stopped'] as const;
export type DispatchStatus = (typeof STATUSES)[number];

/** Messages added per call. */
export const MAX_ADD = 1000;
/** Dispatches hold PROMO traffic unless they say otherwise. */
const DEFAULT_TRAFFIC_TYPE = 'PROMO';
/** `{name}`: letters, digits, underscore. */
const PLACEHOLDER = /\{([\p{L}\p{N}_]+)\}/gu;
/** Stands in for the destinations while the dispatch's own message is validated. */
const SOME_DESTINATION = '79000000000';
const UNIT_MS = { minute: 60_000, hour: 3_600_000 } as const;
/** Messages stopped per statement when a dispatch stops. */
const STOP_BATCH = 1000;

const DISPATCH_FIELDS = ['dispatchName', 'speed', 'cascade'];

/**
 * POST /api/v1/dispatch: the dispatch's message is validated as a message of its channel (its content may hold
 * placeholders, which are plain text until substituted); its status is `initiated`.
 */
export async function createDispatch(
  ctx: AppContext,
  principal: Principal,
  body: unknown,
): Promise<{ dispatchId: string; status: string }> {
  if (!isPlainObject(body)) throw herald('notAnObject');
  const name = body.dispatchName;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200)
    throw name === undefined || name === null
      ? herald('missingField', { field: 'dispatchName' })
      : herald('invalidField', { field: 'dispatchName', value: showValue(name) });
  if (body.cascade !== undefined && body.cascade !== null)
    throw herald('invalidField', { field: 'cascade', value: 'cascades of dispatches are not supported yet' });
  const speed = validateSpeed(body.speed);
  const fields = Object.fromEntries(Object.entries(body).filter(([key]) => !DISPATCH_FIELDS.includes(key)));
  if ('destination' in fields) throw herald('fieldNotAccepted', { field: 'destination' });
  const now = ctx.clock.now();
  const validation = await validationContext(ctx, principal.accountId, [fields], now);
  const message = validateMessage(
    { trafficType: DEFAULT_TRAFFIC_TYPE, ...fields, destination: SOME_DESTINATION },
    validation,
  );
  if (!enabledChannels(principal.accountChannels)[message.channelType])
    throw herald('channelNotEnabled', { channelType: message.channelType });
  const id = newMessageId(now);
  const sender = senderOf(principal);
  await dispatchInsert(ctx.db, {
    accountId: principal.accountId,
    id,
    name,
    now,
    message,
    speed,
    speedMs: speed ? UNIT_MS[speed.unit] / speed.amount : 0,
    trafficCenterId: sender.trafficCenterId,
    sendingMethod: sender.sendingMethod,
    currency: sender.currency,
  });
  return { dispatchId: id, status: 'initiated' };
}

function validateSpeed(value: unknown): Speed | null {
  if (value === undefined || value === null) return null;
  const ok =
    isPlainObject(value) &&
    Number.isInteger(value.amount) &&
    (value.amount as number) >= 1 &&
    (value.amount as number) <= 1_000_000 &&
    (value.unit === 'minute' || value.unit === 'hour') &&
    Object.keys(value).every((k) => k === 'amount' || k === 'unit');
  if (!ok) throw herald('invalidField', { field: 'speed', value: showValue(value) });
  return { amount: (value as { amount: number }).amount, unit: (value as { unit: Speed['unit'] }).unit };
}

export type AddItem =
  { destination: unknown; messageUuid: string } | { destination: unknown; errorCode: number; msg: string };

/**
 * POST /api/v1/dispatch/{id}/messages: 1-1000 destinations with their substitutions, while the dispatch is
 * `initiated`. Each becomes a message at once (priced and reserved, held until the start) or an item error: 7401
 * when its destination or substitutions make no valid message, else the send's own codes (4020 and the like).
 */
export async function addDispatchMessages(
  ctx: AppContext,
  principal: Principal,
  dispatchId: string,
  body: unknown,
): Promise<AddItem[]> {
  if (!Array.isArray(body)) throw herald('notAnArray');
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_ADD) throw herald('tooManyMessages');
  const accountId = principal.accountId;
  const now = ctx.clock.now();
  const dispatch = await dispatchGet(ctx.db, accountId, dispatchId);
  if (!dispatch) throw herald('notFound', { what: `Dispatch ${dispatchId}` });
  const validation = await validationContext(ctx, accountId, [dispatch.message], now);
  const items: (AddItem | undefined)[] = new Array(body.length);
  const valid: { index: number; message: ValidMessage }[] = [];
  body.forEach((item: unknown, index) => {
    const destination = isPlainObject(item) ? item.destination : undefined;
    try {
      valid.push({ index, message: substituted(dispatch, item, validation) });
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      items[index] = {
        destination,
        errorCode: 7401,
        msg: herald('dispatchItemInvalid', { reason: error.message }).message,
      };
    }
  });
  const sender = senderOf(principal);
  const prepared = await prepareMessages(
    ctx,
    ctx.db,
    sender,
    valid.map((v) => ({ message: v.message, dispatchId })),
    undefined,
    now,
  );
  const candidates = prepared.filter((c): c is Candidate => !(c instanceof HeraldError));
  await ctx.db.transaction(async (tx) => {
    // Shared with other adds; a start waits for them, and no add follows it.
    const locked = await dispatchGet(tx, accountId, dispatchId, 'share');
    if (locked?.status !== 'initiated')
      throw herald('conflict', {
        reason: `Dispatch ${dispatchId} is ${locked?.status}: messages are added before it starts`,
      });
    const results = await storeMessages(tx, ctx, sender, candidates, now, {
      directRoom: NO_DIRECT_ROOM,
      leaseUntil: now,
      limitCallbackUrls: true,
    });
    const byId = new Map(candidates.map((c, i) => [c.id, results[i]!]));
    prepared.forEach((p, i) => {
      const { index } = valid[i]!;
      const destination = (body[index] as { destination: unknown }).destination;
      const outcome: HeraldError | NewMessage = p instanceof HeraldError ? p : byId.get(p.id)!;
      items[index] =
        outcome instanceof HeraldError
          ? { destination, errorCode: outcome.code, msg: outcome.message }
          : { destination, messageUuid: outcome.id };
    });
  });
  return items as AddItem[];
}

/** The dispatch's message for one item: its destination, its content with the item's substitutions. */
function substituted(
  dispatch: DispatchRow,
  item: unknown,
  validation: Parameters<typeof validateMessage>[1],
): ValidMessage {
  if (!isPlainObject(item)) throw herald('notAnObject');
  for (const key of Object.keys(item))
    if (key !== 'destination' && key !== 'substitutions') throw herald('fieldNotAccepted', { field: key });
  const destination = normaliseDestination(item.destination);
  if (!destination) throw herald('invalidMsisdn');
  const values = item.substitutions ?? {};
  if (!isPlainObject(values) || Object.values(values).some((v) => typeof v !== 'string' && typeof v !== 'number'))
    throw herald('invalidField', { field: 'substitutions', value: showValue(values) });
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER, (_, name: string) => {
      if (!(name in values)) throw herald('missingField', { field: `substitution ${name}` });
      return String(values[name]);
    });
  const m = dispatch.message;
  const content =
    typeof m.content === 'string'
      ? fill(m.content)
      : isPlainObject(m.content) && typeof m.content.text === 'string'
        ? { ...m.content, text: fill(m.content.text) }
        : m.content;
  // Validated again as a message: a substitution can make a text too long, or a FLASHCALL code no code.
  return validateMessage(
    {
      channelType: m.channelType,
      senderName: m.senderName,
      destination: destination.msisdn,
      content,
      tags: m.tags.length > 0 ? m.tags : undefined,
      trafficType: m.trafficType,
      ...(m.channelType === 'FLASHCALL' || m.channelType === 'VOICECODE'
        ? {}
        : {
            useLocalTime: m.useLocalTime,
            localSendTime: m.localSendTime,
            localCompletionTime: m.localCompletionTime,
            hours: m.hours,
            days: m.days,
            shortUrl: m.shortUrl,
          }),
      ttl: m.ttl,
      callbackUrl: m.callbackUrl,
      callbackEvents: m.callbackEvents,
      externalMessageId: m.externalMessageId,
    },
    validation,
  );
}

/** What a status change may come from. */
const CHANGES = {
  start: { from: ['initiated'], to: 'started' },
  pause: { from: ['started'], to: 'paused' },
  resume: { from: ['paused'], to: 'started' },
  stop: { from: ['initiated', 'started', 'paused'], to: 'stopped' },
} as const;
export type Change = keyof typeof CHANGES;

/**
 * Start, pause, resume or stop. Start and resume plan the held messages from now, spread at the dispatch's speed;
 * pause holds those still waiting (those being handed to a carrier go); stop makes every waiting message unsent,
 * refunded.
 */
export async function changeDispatch(
  ctx: AppContext,
  accountId: number,
  dispatchId: string,
  change: Change,
): Promise<void> {
  const now = ctx.clock.now();
  const rule = CHANGES[change];
  await ctx.db.transaction(async (tx) => {
    const dispatch = await dispatchGet(tx, accountId, dispatchId, 'update');
    if (!dispatch) throw herald('notFound', { what: `Dispatch ${dispatchId}` });
    if (!(rule.from as readonly string[]).includes(dispatch.status))
      throw herald('conflict', { reason: `Dispatch ${dispatchId} is ${dispatch.status}: it cannot ${change}` });
    await dispatchSetStatus(tx, accountId, dispatchId, rule.to, change === 'start' ? now : undefined);
    if (change === 'start' || change === 'resume') {
      // A paced account's dispatch takes its send slots, at its own speed or the account's rate if slower.
      const counts = await messageDispatchCounts(tx, accountId, [dispatchId], now);
      const held = counts.reduce((n, c) => n + c.held, 0);
      const slots = await accountTakePace(tx, accountId, 0, held, now, dispatch.speed_ms);
      const start = slots?.firstBulkAt ?? now;
      await messageDispatchSchedule(tx, accountId, dispatchId, start, slots?.spacingMs ?? dispatch.speed_ms);
    } else if (change === 'pause') await messageDispatchHold(tx, accountId, dispatchId, now);
    else while ((await messageDispatchStop(tx, accountId, dispatchId, now, DELIVERY_ERRORS.stopped, STOP_BATCH)) > 0);
  });
  if (change === 'start' || change === 'resume') ctx.wakeup.notify();
}

const COUNTED = ['sending', 'sent', 'delivered', 'undelivered', 'unsent'] as const;
type Counters = Record<'total' | (typeof COUNTED)[number], number>;

/** The dispatch object of the list and of GET /api/v1/dispatch/{id}. */
export function dispatchToApi(d: DispatchRow, counts: readonly DispatchCount[]) {
  const messages = Object.fromEntries(['total', ...COUNTED].map((k) => [k, 0])) as Counters;
  const parts = { ...messages };
  let later = 0;
  for (const c of counts) {
    if (!(COUNTED as readonly string[]).includes(c.status)) continue;
    messages[c.status as keyof Counters] += c.messages;
    parts[c.status as keyof Counters] += c.parts;
    messages.total += c.messages;
    parts.total += c.parts;
    later += c.later;
  }
  return {
    dispatchId: d.id,
    dispatchName: d.name,
    created: d.created_at.toISOString(),
    localSendTime: d.message.localSendTime,
    localCompletionTime: d.message.localCompletionTime,
    useLocalTime: d.message.useLocalTime,
    status: statusOf(d, messages, later),
    channelType: d.message.channelType,
    source: d.message.senderName,
    message: d.message.content,
    trafficType: d.message.trafficType,
    trafficCenterId: d.traffic_center_id,
    speed: d.speed,
    messages,
    parts,
  };
}

/**
 * A started dispatch is `scheduled` while every message of it waits for a later instant (its window is ahead),
 * `sending` while messages wait or go, `awaiting` once all are with carriers and final statuses are pending, `done`
 * when every message is final.
 */
function statusOf(d: DispatchRow, m: Counters, later: number): DispatchStatus {
  if (d.status !== 'started') return d.status;
  if (m.sending > 0) return later === m.total ? 'scheduled' : 'sending';
  return m.sent > 0 ? 'awaiting' : 'done';
}

export async function countsOf(ctx: AppContext, accountId: number, ids: readonly string[]) {
  return messageDispatchCounts(ctx.db, accountId, ids, ctx.clock.now());
}
