/** A stored callback event's facts, as the sender reads them. */
export interface EventFacts {
  message_id: string;
  event: string;
  channel_type: string;
  status: string | null;
  /** ISO 8601 UTC with seconds, formatted by the database. */
  at: string;
  error_code: number | null;
  extra: Record<string, unknown> | null;
  cascade_id: string | null;
  cascade_step: number | null;
}

/**
 * The JSON body of an event, field by field as spec sections 6.2 to 6.5 list them: status events (sent,
 * delivered, read), price, click and inbound messages.
 */
export function eventBody(e: EventFacts): string {
  const base = {
    message_uuid: e.message_id,
    channel_type: e.channel_type,
    // Messages of a cascade only (spec 6.2-6.4).
    ...(e.cascade_id !== null ? { cascade_message_uuid: e.cascade_id, cascade_step: e.cascade_step } : {}),
    callback_event: e.event,
  };
  switch (e.event) {
    case 'price':
      return JSON.stringify({
        ...base,
        parts: e.extra?.parts,
        price: e.extra?.price,
        currency: e.extra?.currency ?? null,
        price_time: e.at,
      });
    case 'click':
      return JSON.stringify({ ...base, url: e.extra?.url, short_url: e.extra?.short_url, click_time: e.at });
    case 'inbound_sent':
      return JSON.stringify({
        message_uuid: e.message_id,
        callback_event: e.event,
        channel_type: e.channel_type,
        status: e.status,
        status_time: e.at,
        item: e.extra?.item,
      });
    default:
      return JSON.stringify({
        ...base,
        status: e.status,
        status_time: e.at,
        ...(e.error_code !== null ? { error_code: e.error_code } : {}),
      });
  }
}
