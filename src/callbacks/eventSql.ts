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

/** Lanes per callback URL: its deliveries in flight at once. */
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
  return `${alias}.callback_target_id IS NOT NULL AND ${event} = ANY(coalesce(${alias}.callback_events, ARRAY['delivered']))`;
}

/**
 * A SELECT of the status events of moved messages, with the columns {@link insertEventsCte} takes and `n`, the
 * position of the entry in the change. `moved` must have columns account_id, id, channel_type, callback_target_id,
 * callback_events and h (the history entries the change added, in order). Entries marked ignored report nothing.
 */
export function statusEventsSelect(moved: string): string {
  return `SELECT mv.callback_target_id AS target_id, mv.account_id, mv.id AS message_id, x.event, mv.channel_type,
         x.h->>'status' AS status, (x.h->>'at')::timestamptz AS at, (x.h->>'errorCode')::int AS error_code,
         NULL::jsonb AS extra, x.n::numeric AS n
       FROM ${moved} mv
       CROSS JOIN LATERAL (
         SELECT h, n, ${EVENT_OF_STATUS} AS event FROM jsonb_array_elements(mv.h) WITH ORDINALITY AS x(h, n)
       ) x
       WHERE x.event IS NOT NULL AND NOT coalesce((x.h->>'ignored')::boolean, false) AND ${wantsEvent('mv', 'x.event')}`;
}

/** The status events of moved messages (see {@link statusEventsSelect}), inserted in order. */
export function statusEventsCte(moved: string): string {
  return `status_events AS (${statusEventsSelect(moved)}),
     ${insertEventsCte('status_events', 'ORDER BY message_id, n')}`;
}

/**
 * Inserts events from `source` (target_id, account_id, message_id, event, channel_type, status, at, error_code,
 * extra) in the given order, each in its message's lane. Nothing else is touched: the callback sender finds new
 * events by their ids, so hot statements take no lock on a shared row.
 */
export function insertEventsCte(source: string, order: string, name = 'inserted_events'): string {
  return `${name} AS (
       INSERT INTO callback_events (target_id, lane, account_id, message_id, event, channel_type, status, at, error_code, extra)
       SELECT target_id, ${laneSql('message_id')}, account_id, message_id, event, channel_type, status, at, error_code, extra
       FROM ${source} ${order}
     )`;
}

/**
 * The extra fields of a price event (spec 6.3): parts, price and the currency, which is always set (the
 * account's, also for a free message).
 */
export function priceExtra(alias: string, price: string): string {
  return `jsonb_build_object('parts', ${alias}.total_parts, 'price', trim_scale((${price})::numeric), 'currency', ${alias}.currency)`;
}
