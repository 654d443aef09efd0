/**
 * SQL fragments that write callback events inside the statements that make the changes they report, so that an
 * event is committed if and only if its change is (DESIGN section 5). Each takes a relation of the changes and
 * yields CTEs; the caller puts them after its own CTEs in one WITH.
 */

/** ISO 8601 UTC with seconds, as callbacks show times. */
export const isoSql = (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/** The callback event a status belongs to (spec 6.1): delivered, sent or read. */
const EVENT_OF_STATUS = `CASE x.h->>'status'
  WHEN 'sent' THEN 'sent'
  WHEN 'delivered' THEN 'delivered' WHEN 'undelivered' THEN 'delivered' WHEN 'unsent' THEN 'delivered'
  WHEN 'read' THEN 'read' WHEN 'unread' THEN 'read' END`;

/**
 * Status events from moved messages. `moved` must have columns account_id, id, channel_type, callback_target_id,
 * callback_events and h (the history entries the change added, in order). Entries marked ignored report nothing.
 * Without callbackEvents the default event is `delivered`.
 */
export function statusEventsCte(moved: string, now: string): string {
  return `status_events AS (
       SELECT mv.callback_target_id AS target_id, mv.account_id, mv.id AS message_id, x.event,
         jsonb_strip_nulls(jsonb_build_object(
           'message_uuid', mv.id, 'channel_type', mv.channel_type, 'callback_event', x.event,
           'status', x.h->>'status', 'status_time', ${isoSql("(x.h->>'at')::timestamptz")},
           'error_code', (x.h->>'errorCode')::int)) AS body,
         x.n
       FROM ${moved} mv
       CROSS JOIN LATERAL (
         SELECT h, n, ${EVENT_OF_STATUS} AS event FROM jsonb_array_elements(mv.h) WITH ORDINALITY AS x(h, n)
       ) x
       WHERE mv.callback_target_id IS NOT NULL AND x.event IS NOT NULL
         AND NOT coalesce((x.h->>'ignored')::boolean, false)
         AND x.event = ANY(coalesce(mv.callback_events, ARRAY['delivered']))
     ),
     ${insertEventsCte('status_events', 'ORDER BY message_id, n', now)}`;
}

/**
 * Inserts events from `source` (target_id, account_id, message_id, event, body) in the given order. Nothing else
 * is touched: the callback sender finds new events by their ids, so hot statements take no lock on a shared row.
 */
export function insertEventsCte(source: string, order: string, now: string, name = 'inserted_events'): string {
  return `${name} AS (
       INSERT INTO callback_events (target_id, account_id, message_id, event, body, created_at)
       SELECT target_id, account_id, message_id, event, body, ${now} FROM ${source} ${order}
     )`;
}

/** The body of a price event (spec 6.3). */
export function priceEventBody(alias: string, price: string, time: string): string {
  return `jsonb_build_object('message_uuid', ${alias}.id, 'channel_type', ${alias}.channel_type, 'callback_event', 'price',
    'parts', ${alias}.total_parts, 'price', trim_scale((${price})::numeric), 'currency', ${alias}.currency, 'price_time', ${isoSql(time)})`;
}
