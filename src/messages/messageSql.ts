import { messageColumns, type MessageRow } from './messageObject.js';
import { destinationsInsertCte } from './destinationSql.js';
import { cascadeStepKeysCte, inboundKeyCte } from './messageKeys.js';
import { messageRegionId, messageRegionsCte } from './regionSql.js';
import {
  type CallbackEvent,
  cascadeOf,
  eventSelect,
  insertEventsCte,
  priceExtra,
  wantsEvent,
} from '../callbacks/index.js';
import { genericPlan, type Queryable } from '../db/db.js';
import { type ArrayColumn, arrayLiteral, columnValues, unnestSelect } from '../db/columnArrays.js';
import { sliceEnds } from '../db/jsonSlices.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/index.js';
import type { Subscriber } from '../numbering/index.js';
import type { Channel } from '../shared/channels.js';
import type { TrafficType } from '../shared/trafficTypes.js';
import { isoMs } from '../util/time.js';

/** A message that passed validation, normalised for storage. */
export interface ValidMessage {
  readonly channelType: Channel;
  readonly senderName: string;
  readonly destination: string;
  readonly country: string | null;
  readonly content: unknown;
  readonly tags: readonly string[];
  readonly useLocalTime: boolean;
  readonly localSendTime: string | null;
  readonly localCompletionTime: string | null;
  readonly ttl: number | null;
  readonly hours: readonly number[] | null;
  readonly days: readonly number[] | null;
  readonly shortUrl: boolean;
  readonly callbackUrl: string | null;
  readonly callbackEvents: readonly CallbackEvent[] | null;
  readonly externalMessageId: string | null;
  readonly totalParts: number;
  readonly trafficType: TrafficType;
}

/** How a message was sent (the message object's `sendingMethod`): through the API, or from the web pages. */
export type SendingMethod = 'API' | 'UI';

export interface NewMessage {
  readonly id: string;
  readonly message: ValidMessage;
  readonly subscriber: Subscriber;
  /** Null when the send window never opens: the submitter makes the message unsent at once. */
  readonly plannedSendAt: Date | null;
  readonly deadlineAt: Date;
  /** The end of the message's lifetime (see SendPlan). */
  readonly expiresAt: Date;
  /** Stored already leased to this process's submitter (see AppContext.directSubmit). */
  readonly leased: boolean;
  /** The reserved price (decimal string) and its currency: '0' and the account's currency when free. */
  readonly price: string;
  readonly currency: string;
  readonly callbackTargetId: number | null;
  readonly templateId: number | null;
  /** The cascade the message is a step of: its root's id (the first step's own) and the 1-based step. */
  readonly cascade?: { readonly id: string; readonly step: number } | undefined;
  /** The dispatch the message belongs to. */
  readonly dispatchId?: string | undefined;
  /** Held until its dispatch starts: never due (its plan is made then). */
  readonly held?: boolean | undefined;
  /** The fraud hold it waits in (fraud/): never due until the operator releases it. */
  readonly fraudHoldId?: number | undefined;
}

/**
 * A new message's row for the insert. Undefined reads as NULL: the plan of a message that may go at once (planned now,
 * its deadline and lifetime's end now + ttl, the common case) and the account's own currency are left for the
 * statement to fill in.
 */
function insertRow(
  nowMs: number,
  batchCurrency: string,
  {
    id,
    message: m,
    subscriber,
    plannedSendAt,
    deadlineAt,
    expiresAt,
    leased,
    price,
    currency,
    callbackTargetId,
    templateId,
    cascade,
    dispatchId,
    held,
    fraudHoldId,
  }: NewMessage,
) {
  const end = nowMs + (m.ttl ?? DEFAULT_TTL_SECONDS) * 1000;
  const atOnce = plannedSendAt?.getTime() === nowMs && deadlineAt.getTime() === end && expiresAt.getTime() === end;
  return {
    id,
    channel_type: m.channelType,
    sender_name: m.senderName,
    destination: m.destination,
    country: m.country ?? undefined,
    region: subscriber.region ?? undefined,
    brand: subscriber.brand ?? undefined,
    // Its JSON text (the statement casts it): a missing content stays NULL, which the column refuses.
    content: m.content == null ? undefined : JSON.stringify(m.content),
    tags: m.tags.length > 0 ? m.tags : undefined,
    use_local_time: m.useLocalTime,
    local_send_time: m.localSendTime ?? undefined,
    local_completion_time: m.localCompletionTime ?? undefined,
    ttl: m.ttl ?? undefined,
    hours: m.hours ?? undefined,
    days: m.days ?? undefined,
    short_url: m.shortUrl,
    // A callback URL resolved to its target is read from the target (messageColumns): each of the row's four
    // versions (insert, claim, sent, final) would write it again.
    callback_url: callbackTargetId ? undefined : (m.callbackUrl ?? undefined),
    callback_events: m.callbackEvents ?? undefined,
    external_message_id: m.externalMessageId ?? undefined,
    total_parts: m.totalParts,
    ...(atOnce
      ? {}
      : {
          planned: true,
          planned_send_at: plannedSendAt ? isoMs(plannedSendAt) : undefined,
          deadline_at: isoMs(deadlineAt),
          expires_at: isoMs(expiresAt),
        }),
    leased,
    price,
    currency: currency === batchCurrency ? undefined : currency,
    callback_target_id: callbackTargetId ?? undefined,
    template_id: templateId ?? undefined,
    traffic_type: m.trafficType,
    dispatch_id: dispatchId,
    held: held || fraudHoldId !== undefined || undefined,
    fraud_hold_id: fraudHoldId,
    cascade_id: cascade?.id,
    cascade_step: cascade?.step,
  };
}

type InsertRow = ReturnType<typeof insertRow>;

/** The inserted messages as the statement reads them (`r`): one typed array a column (db/columnArrays.ts). */
const INSERT_COLUMNS: readonly ArrayColumn<InsertRow>[] = [
  { name: 'id', type: 'uuid' },
  { name: 'channel_type', type: 'text' },
  { name: 'sender_name', type: 'text' },
  { name: 'destination', type: 'text' },
  { name: 'country', type: 'text' },
  { name: 'region', type: 'text' },
  { name: 'brand', type: 'text' },
  { name: 'content', type: 'jsonb', as: 'json', value: (r) => r.content },
  { name: 'tags', type: 'text[]', as: 'text', value: (r) => r.tags && arrayLiteral(r.tags) },
  { name: 'use_local_time', type: 'boolean' },
  { name: 'local_send_time', type: 'text' },
  { name: 'local_completion_time', type: 'text' },
  { name: 'ttl', type: 'integer' },
  { name: 'hours', type: 'smallint[]', as: 'text', value: (r) => r.hours && arrayLiteral(r.hours) },
  { name: 'days', type: 'smallint[]', as: 'text', value: (r) => r.days && arrayLiteral(r.days) },
  { name: 'short_url', type: 'boolean' },
  { name: 'callback_url', type: 'text' },
  {
    name: 'callback_events',
    type: 'text[]',
    as: 'text',
    value: (r) => r.callback_events && arrayLiteral(r.callback_events),
  },
  { name: 'external_message_id', type: 'text' },
  { name: 'total_parts', type: 'integer' },
  { name: 'planned', type: 'boolean' },
  { name: 'planned_send_at', type: 'timestamptz' },
  { name: 'deadline_at', type: 'timestamptz' },
  { name: 'expires_at', type: 'timestamptz' },
  { name: 'leased', type: 'boolean' },
  { name: 'price', type: 'numeric' },
  { name: 'currency', type: 'text' },
  { name: 'callback_target_id', type: 'bigint' },
  { name: 'template_id', type: 'bigint' },
  { name: 'cascade_id', type: 'uuid' },
  { name: 'cascade_step', type: 'smallint' },
  { name: 'traffic_type', type: 'text' },
  { name: 'dispatch_id', type: 'uuid' },
  { name: 'held', type: 'boolean' },
  { name: 'fraud_hold_id', type: 'bigint' },
];

// The insert's parameters: $1-$8 the batch's own (messageInsertBatch), then the rows' columns.
const INSERT_FIRST = 9;
const INSERT_SELECT = unnestSelect(INSERT_COLUMNS, INSERT_FIRST, 'r');
/** The rows' region names, their column's parameter: read apart by messageRegionsCte. */
const REGION_NAMES = `$${INSERT_FIRST + INSERT_COLUMNS.findIndex((c) => c.name === 'region')}::text[]`;

/**
 * A row's text as a slice of a batch counts it: its content and free texts as sent, and some 200 bytes for the other
 * columns' values (ids, times, names, numbers) and the elements' quotes and separators.
 */
const insertRowBytes = (r: InsertRow): number =>
  200 +
  (r.content?.length ?? 0) +
  (r.tags?.reduce((n, tag) => n + tag.length + 3, 0) ?? 0) +
  (r.callback_url?.length ?? 0) +
  (r.external_message_id?.length ?? 0);

/**
 * Inserts a batch of new messages in status `sending`, due at their planned send time, with one statement: the rows
 * travel as one typed array a column, read with unnest (INSERT_COLUMNS), so a 1000-message batch is one round trip.
 * (As one JSON array through jsonb_to_recordset the server parsed them about twice as long: docs/scaling.md, "The
 * hot statements' rows as arrays".)
 */
export async function messageInsertBatch(
  db: Queryable,
  batch: {
    accountId: number;
    trafficCenterId: number | null;
    sendingMethod: SendingMethod;
    /** The account's currency: the messages' unless one says otherwise. */
    currency: string;
    /**
     * False for messages refused at their creation (stored only to become unsent in the same transaction): nothing
     * is reserved, so no price event now; the one that makes their price final (0) follows with the unsent status.
     */
    reserved?: boolean;
    now: Date;
    leaseUntil: Date;
    messages: readonly NewMessage[];
  },
): Promise<void> {
  const nowMs = batch.now.getTime();
  const rows = batch.messages.map((m) => insertRow(nowMs, batch.currency, m));
  // Statements of at most 512 KiB of rows each: a batch of long messages holds PGlite a slice at a time.
  let from = 0;
  for (const end of sliceEnds(rows.length, (i) => insertRowBytes(rows[i]!))) {
    const slice = rows.slice(from, end);
    from = end;
    await db.query(
      genericPlan(`WITH r AS (${INSERT_SELECT}),${messageRegionsCte(REGION_NAMES)},
     inserted AS (
     INSERT INTO messages (
       account_id, id, created_at, channel_type, traffic_center_id, sender_name, destination, country, region_id, brand,
       content, tags, use_local_time, local_send_time, local_completion_time, ttl, hours, days, short_url,
       callback_url, callback_events, external_message_id, total_parts, status, status_at, planned_send_at, due_at,
       deadline_at, expires_at, history, lease_expires_at, attempts, price, currency, callback_target_id, template_id,
       sending_method, cascade_id, cascade_step, traffic_type, dispatch_id, fraud_hold_id)
     SELECT $1, r.id, $2, r.channel_type, $3, r.sender_name, r.destination, r.country,
       ${messageRegionId('g', 'r.region')}, r.brand, r.content,
       r.tags, r.use_local_time, r.local_send_time, r.local_completion_time, r.ttl, r.hours, r.days,
       r.short_url, r.callback_url, r.callback_events, r.external_message_id, r.total_parts, 'sending', $2,
       CASE WHEN r.planned THEN r.planned_send_at ELSE $2 END,
       CASE WHEN r.leased THEN $4 WHEN r.held THEN 'infinity' ELSE coalesce(r.planned_send_at, $2) END,
       coalesce(r.deadline_at, $2 + make_interval(secs => coalesce(r.ttl, $6))),
       coalesce(r.expires_at, $2 + make_interval(secs => coalesce(r.ttl, $6))),
       '[]'::jsonb, CASE WHEN r.leased THEN $4::timestamptz END, CASE WHEN r.leased THEN 1 ELSE 0 END, r.price,
       coalesce(r.currency, $7), r.callback_target_id, r.template_id, $5, r.cascade_id, r.cascade_step,
       r.traffic_type, r.dispatch_id, r.fraud_hold_id
     -- In the rows' order (their ids'): regions is one row.
     FROM r CROSS JOIN regions g
     RETURNING account_id, id, channel_type, destination, total_parts, price, currency, callback_target_id,
       callback_events, cascade_id, cascade_step
     ),
     ${destinationsInsertCte('inserted')},
     ${cascadeStepKeysCte('inserted')},
     price_events AS (${eventSelect(
       {
         targetId: 'callback_target_id',
         accountId: 'account_id',
         messageId: 'id',
         event: "'price'",
         channelType: 'channel_type',
         status: 'NULL::text',
         at: '$2::timestamptz',
         errorCode: 'NULL::int',
         extra: priceExtra('inserted', 'inserted.price'),
         ...cascadeOf('inserted'),
       },
       'inserted',
       `$8::boolean AND ${wantsEvent('inserted', "'price'")}`,
     )}),
     ${insertEventsCte('price_events', 'ORDER BY message_id')}
     SELECT 1`),
      [
        batch.accountId,
        batch.now,
        batch.trafficCenterId,
        batch.leaseUntil,
        batch.sendingMethod,
        DEFAULT_TTL_SECONDS,
        batch.currency,
        batch.reserved ?? true,
        ...columnValues(INSERT_COLUMNS, slice),
      ],
    );
  }
}

/**
 * `source` joined to the messages its rows name (by their account_id and message_id), the messages as `alias`: for
 * statements on other tables that need a message's columns (its callback target, its day for the statistics).
 */
export function messagesJoin(source: string, alias: string): string {
  const on = `${alias}.account_id = ${source}.account_id AND ${alias}.id = ${source}.message_id`;
  return `${source} JOIN messages ${alias} ON ${on}`;
}

export async function messageCount(db: Queryable, accountId: number): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*) AS n FROM messages WHERE account_id = $1', [accountId]);
  return row!.n;
}

/** An inbound message, as a provider's webhook brings it. */
export interface NewInbound {
  readonly accountId: number;
  readonly id: string;
  readonly at: Date;
  readonly trafficCenterId: number;
  readonly senderName: string;
  readonly subscriber: string;
  readonly country: string | null;
  readonly text: string;
  /** `connectorId:providerId`: a webhook sent again stores nothing twice. */
  readonly providerMessageId: string;
  /** WHATSAPP unless given (an inbound SMS: SMS). */
  readonly channelType?: 'WHATSAPP' | 'SMS' | 'TELEGRAM';
  /** The account's currency: an inbound message costs 0 in it (DESIGN 12: a price always has a currency). */
  readonly currency: string;
  /** The parts it came in (a long SMS); 1 unless given. */
  readonly totalParts?: number;
}

/** The message object's columns, built once (not per webhook). */
const INBOUND_COLUMNS = messageColumns('m');

/**
 * Stores an inbound message (WhatsApp, or SMS), its price 0 in the account's currency and final (nothing is charged
 * for it); undefined when the provider sent it before.
 */
export async function messageInsertInbound(db: Queryable, m: NewInbound): Promise<MessageRow | undefined> {
  // The key first: a webhook sent again, even at the same moment, finds it taken (or waits for its transaction).
  const [row] = await db.query<MessageRow>(
    `WITH ${inboundKeyCte('$1::bigint', '$10::text', '$2::uuid')},
     inserted AS (
       INSERT INTO messages AS m (account_id, id, created_at, channel_type, direction, sending_method,
         traffic_center_id, sender_name, destination, country, content, total_parts, status, status_at, history,
         provider_message_id, currency, price_final)
       SELECT $1, k.message_id, $3, $11, 'inbound', 'API', $4, $5, $6, $7, $8, $13, 'inbound_sent', $3, $9, $10, $12,
         true
       FROM key k
       RETURNING ${INBOUND_COLUMNS}
     ),
     ${destinationsInsertCte('inserted')}
     SELECT * FROM inserted`,
    [
      m.accountId,
      m.id,
      m.at,
      m.trafficCenterId,
      m.senderName,
      m.subscriber,
      m.country,
      // SMS content is a string; WhatsApp's a content object (the messages table's content column).
      JSON.stringify(m.channelType === 'SMS' ? m.text : { contentType: 'text', text: m.text }),
      JSON.stringify([{ status: 'inbound_sent', at: isoMs(m.at) }]),
      m.providerMessageId,
      m.channelType ?? 'WHATSAPP',
      m.currency,
      m.totalParts ?? 1,
    ],
  );
  return row;
}
