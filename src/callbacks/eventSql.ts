import type { Queryable } from '../db/db.js';
/**
 * SQL fragments that write callback events inside the statements that make the changes they report, so that an
 * event is committed if and only if its change is. Events are stored as facts (status, time,
 * error code, extra fields); their JSON bodies are written when they are sent (eventBody.ts).
 */

/** The callback event a history entry's status belongs to (spec 6.1): delivered, sent or read. */
const EVENT_OF_STATUS = `CASE x.h->>'status'
  WHEN 'sent' THEN 'sent'
  WHEN 'delivered' THEN 'delivered' WHEN 'undelivered' THEN 'delivered' WHEN 'unsent' THEN 'delivered'
  WHEN 'read' THEN 'read' WHEN 'unread' THEN 'read' END`;

/** Lanes per callback URL: its POSTs in flight at once. */
export const LANES = 16;

/**
 * Where a price event goes among the status events of the same change (their `n` count its history entries from
 * 1): right after the first, which is the one that made the price final (sent, or unsent with its refund).
 */
export const PRICE_EVENT_ORDER = 1.5;

/** The lane of a message: from the last byte of its uuid, which is random. */
export function laneSql(messageId: string): string {
  return `(get_byte(uuid_send(${messageId}), 15) % ${LANES})`;
}

/** Whether a message asked for an event: without callbackEvents, only `delivered` (spec 6.1). */
export function wantsEvent(alias: string, event: string): string {
  return (
    `${alias}.callback_target_id IS NOT NULL AND ${event} = ANY(coalesce(${alias}.callback_events, ` +
    `ARRAY['delivered']))`
  );
}

/**
 * The columns of a callback event, each an SQL expression over the rows it is made from. Every column is required:
 * a statement that raises events cannot leave one out (test/callbacks/outbox.test.ts checks this list against the
 * table's columns). The lane is not here: it follows from the message.
 */
export interface EventColumns {
  readonly targetId: string;
  readonly accountId: string;
  readonly messageId: string;
  readonly event: string;
  readonly channelType: string;
  /** NULL for events that are not a status (price, click). */
  readonly status: string;
  readonly at: string;
  readonly errorCode: string;
  /** The event's fields beyond the status ones (jsonb), NULL for none. */
  readonly extra: string;
  /** The message's cascade (its root's id) and step, NULL for a message outside a cascade. */
  readonly cascadeId: string;
  readonly cascadeStep: string;
}

/** The cascade columns of an event of the message `alias` (a row of messages, or with their names). */
export function cascadeOf(alias: string): Pick<EventColumns, 'cascadeId' | 'cascadeStep'> {
  return { cascadeId: `${alias}.cascade_id`, cascadeStep: `${alias}.cascade_step` };
}

/** The cascade columns of an event of no cascade. */
export const NO_CASCADE: Pick<EventColumns, 'cascadeId' | 'cascadeStep'> = {
  cascadeId: 'NULL::uuid',
  cascadeStep: 'NULL::smallint',
};

/** The column each field of {@link EventColumns} fills. */
export const EVENT_COLUMNS: Readonly<Record<keyof EventColumns, string>> = {
  targetId: 'target_id',
  accountId: 'account_id',
  messageId: 'message_id',
  event: 'event',
  channelType: 'channel_type',
  status: 'status',
  at: 'at',
  errorCode: 'error_code',
  extra: 'extra',
  cascadeId: 'cascade_id',
  cascadeStep: 'cascade_step',
};

/**
 * A SELECT of events for {@link insertEventsCte}: `columns` over `from`, where `where` holds, with `order` (an
 * expression events are sorted by within their message) as `n`.
 */
export function eventSelect(columns: EventColumns, from: string, where: string, order = '0'): string {
  const list = (Object.keys(EVENT_COLUMNS) as (keyof EventColumns)[]).map(
    (key) => `${columns[key]} AS ${EVENT_COLUMNS[key]}`,
  );
  return `SELECT ${list.join(', ')}, (${order})::numeric AS n FROM ${from} WHERE ${where}`;
}

/**
 * A SELECT of the status events of moved messages, with the columns {@link insertEventsCte} takes and `n`, the
 * position of the entry in the change. `moved` must have columns account_id, id, channel_type, callback_target_id,
 * callback_events, cascade_id, cascade_step and h (the history entries the change added, in order). Entries marked
 * ignored report nothing.
 */
export function statusEventsSelect(moved: string): string {
  return eventSelect(
    {
      targetId: 'mv.callback_target_id',
      accountId: 'mv.account_id',
      messageId: 'mv.id',
      event: 'x.event',
      channelType: 'mv.channel_type',
      status: "x.h->>'status'",
      at: "(x.h->>'at')::timestamptz",
      errorCode: "(x.h->>'errorCode')::int",
      extra: 'NULL::jsonb',
      ...cascadeOf('mv'),
    },
    `${moved} mv CROSS JOIN LATERAL (
         SELECT h, n, ${EVENT_OF_STATUS} AS event FROM jsonb_array_elements(mv.h) WITH ORDINALITY AS x(h, n)
       ) x`,
    `x.event IS NOT NULL AND NOT coalesce((x.h->>'ignored')::boolean, false) AND ${wantsEvent('mv', 'x.event')}`,
    'x.n',
  );
}

/** The status events of moved messages (see {@link statusEventsSelect}), inserted in order. */
export function statusEventsCte(moved: string): string {
  return `status_events AS (${statusEventsSelect(moved)}),
     ${insertEventsCte('status_events', 'ORDER BY message_id, n')}`;
}

/**
 * Inserts events from `source`, a CTE made of {@link eventSelect}s, in the given order, each in its message's lane.
 * Nothing else is touched: the callback sender finds new
 * events by their ids, so hot statements take no lock on a shared row.
 */
export function insertEventsCte(source: string, order: string, name = 'inserted_events'): string {
  const columns = Object.values(EVENT_COLUMNS).join(', ');
  return `${name} AS (
       INSERT INTO callback_events (lane, ${columns})
       SELECT ${laneSql('message_id')}, ${columns} FROM ${source} ${order}
     )`;
}

/** One event written on its own (an inbound message's), with its fields as values. */
export interface NewEvent {
  readonly targetId: number;
  readonly accountId: number;
  readonly messageId: string;
  readonly event: string;
  readonly channelType: string;
  readonly status: string | null;
  readonly at: Date;
  readonly errorCode: number | null;
  readonly extra: Record<string, unknown> | null;
}

/** Writes one callback event in the caller's transaction, in its message's lane. */
export async function callbackEventInsert(db: Queryable, e: NewEvent): Promise<void> {
  await db.query(
    `WITH one AS (${eventSelect(
      {
        targetId: '$1::bigint',
        accountId: '$2::bigint',
        messageId: '$3::uuid',
        event: '$4::text',
        channelType: '$5::text',
        status: '$6::text',
        at: '$7::timestamptz',
        errorCode: '$8::int',
        extra: '$9::jsonb',
        ...NO_CASCADE,
      },
      '(SELECT 1) AS single',
      'true',
    )}),
     ${insertEventsCte('one', '')}
     SELECT 1`,
    [
      e.targetId,
      e.accountId,
      e.messageId,
      e.event,
      e.channelType,
      e.status,
      e.at,
      e.errorCode,
      e.extra === null ? null : JSON.stringify(e.extra),
    ],
  );
}

/**
 * The extra fields of a price event (spec 6.3): parts, price and the currency, which is always set (the
 * account's, also for a free message).
 */
export function priceExtra(alias: string, price: string): string {
  return (
    `jsonb_build_object('parts', ${alias}.total_parts, 'price', trim_scale((${price})::numeric), 'currency', ` +
    `${alias}.currency)`
  );
}

/**
 * Whether any event was written after `position`: an index probe of callback_events_txid. In the index's order: with
 * a bare LIMIT, a planner without statistics of the outbox (a new one, one restored) took a third of it for the
 * range and read it from the start instead, 1.6 ms a look in a roles run (docs/scaling.md, "The idle look").
 */
export async function callbackEventsAfter(db: Queryable, position: { txid: string; id: number }): Promise<boolean> {
  const rows = await db.query(
    'SELECT 1 FROM callback_events WHERE (txid, id) > ($1::xid8, $2::bigint) ORDER BY txid, id LIMIT 1',
    [position.txid, position.id],
  );
  return rows.length > 0;
}
