import { insertEventsCte, priceExtra, wantsEvent } from '../callbacks/eventSql.js';
import type { Queryable } from '../db/db.js';
import { DEFAULT_TTL_SECONDS } from '../schedule/sendWindow.js';
import type { Subscriber } from '../numbering/subscriber.js';
import type { ValidMessage } from './validateMessage.js';

/** How a message was sent (the message object's `sendingMethod`): through the API, or from the web pages. */
export type SendingMethod = 'API' | 'UI';

export interface NewMessage {
  readonly id: string;
  readonly message: ValidMessage;
  readonly subscriber: Subscriber;
  /** Null when the send window never opens: the dispatcher makes the message unsent at once. */
  readonly plannedSendAt: Date | null;
  readonly deadlineAt: Date;
  /** The end of the message's lifetime (see SendPlan). */
  readonly expiresAt: Date;
  /** Stored already leased to this process's dispatcher (see AppContext.directDispatch). */
  readonly leased: boolean;
  /** The reserved price (decimal string) and its currency: '0' and the account's currency when free. */
  readonly price: string;
  readonly currency: string;
  readonly callbackTargetId: number | null;
  readonly templateId: number | null;
}

/**
 * Inserts a batch of new messages in status `sending`, due at their planned send time, with one statement: the rows
 * travel as one JSON array and are expanded by json_to_recordset, so a 1000-message batch is one round trip.
 */
export async function messageInsertBatch(
  db: Queryable,
  batch: {
    accountId: number;
    trafficCenterId: number | null;
    sendingMethod: SendingMethod;
    /** The account's currency: the messages' unless one says otherwise. */
    currency: string;
    now: Date;
    leaseUntil: Date;
    messages: readonly NewMessage[];
  },
): Promise<void> {
  // Absent keys read as NULL in json_to_recordset: leaving nulls out keeps the statement's text a fifth smaller.
  // Likewise the plan of a message that may go at once (planned now, its deadline and lifetime's end now + ttl, the
  // common case) and the account's own currency are left for the statement to fill in.
  const nowMs = batch.now.getTime();
  const rows = batch.messages.map(({ id, message: m, subscriber, plannedSendAt, deadlineAt, expiresAt, leased, price, currency, callbackTargetId, templateId }) => {
    const end = nowMs + (m.ttl ?? DEFAULT_TTL_SECONDS) * 1000;
    const atOnce = plannedSendAt?.getTime() === nowMs && deadlineAt.getTime() === end && expiresAt.getTime() === end;
    return {
      id,
      ch: m.channelType,
      sn: m.senderName,
      ds: m.destination,
      co: m.country ?? undefined,
      rg: subscriber.region ?? undefined,
      br: subscriber.brand ?? undefined,
      ct: m.content,
      tg: m.tags.length > 0 ? m.tags : undefined,
      ul: m.useLocalTime,
      ls: m.localSendTime ?? undefined,
      lc: m.localCompletionTime ?? undefined,
      tl: m.ttl ?? undefined,
      hr: m.hours ?? undefined,
      dy: m.days ?? undefined,
      su: m.shortUrl,
      cu: m.callbackUrl ?? undefined,
      ce: m.callbackEvents ?? undefined,
      ex: m.externalMessageId ?? undefined,
      tp: m.totalParts,
      ...(atOnce ? {} : { planned: true, ps: plannedSendAt?.toISOString(), dl: deadlineAt.toISOString(), expires: expiresAt.toISOString() }),
      le: leased,
      pr: price,
      cy: currency === batch.currency ? undefined : currency,
      tg_id: callbackTargetId ?? undefined,
      tm: templateId ?? undefined,
    };
  });
  await db.query(
    `WITH inserted AS (
     INSERT INTO messages (
       account_id, id, created_at, channel_type, traffic_center_id, sender_name, destination, country, region, brand,
       content, tags, use_local_time, local_send_time, local_completion_time, ttl, hours, days, short_url,
       callback_url, callback_events, external_message_id, total_parts, status, status_at, planned_send_at, due_at,
       deadline_at, expires_at, history, lease_expires_at, attempts, price, currency, callback_target_id, template_id,
       sending_method)
     SELECT $1, r.id, $2, r.ch, $3, r.sn, r.ds, r.co, r.rg, r.br, r.ct, coalesce(r.tg, '{}'), r.ul, r.ls, r.lc, r.tl, r.hr, r.dy,
       r.su, r.cu, r.ce, r.ex, r.tp, 'sending', $2, CASE WHEN r.planned THEN r.ps ELSE $2 END,
       CASE WHEN r.le THEN $6 ELSE coalesce(r.ps, $2) END,
       coalesce(r.dl, $2 + make_interval(secs => coalesce(r.tl, $8))), coalesce(r.expires, $2 + make_interval(secs => coalesce(r.tl, $8))),
       $5::jsonb, CASE WHEN r.le THEN $6::timestamptz END, CASE WHEN r.le THEN 1 ELSE 0 END, r.pr, coalesce(r.cy, $9), r.tg_id, r.tm,
       $7
     FROM json_to_recordset($4::json) AS r(
       id uuid, ch text, sn text, ds text, co text, rg text, br text, ct jsonb, tg text[], ul boolean, ls text,
       lc text, tl integer, hr smallint[], dy smallint[], su boolean, cu text, ce text[], ex text, tp integer,
       planned boolean, ps timestamptz, dl timestamptz, expires timestamptz, le boolean, pr numeric, cy text, tg_id bigint, tm bigint)
     RETURNING account_id, id, channel_type, total_parts, price, currency, callback_target_id, callback_events
     ),
     price_events AS (
       SELECT callback_target_id AS target_id, account_id, id AS message_id, 'price' AS event, channel_type,
         NULL::text AS status, $2::timestamptz AS at, NULL::int AS error_code, ${priceExtra('inserted', 'inserted.price')} AS extra
       FROM inserted
       WHERE ${wantsEvent('inserted', "'price'")}
     ),
     ${insertEventsCte('price_events', 'ORDER BY message_id')}
     SELECT 1`,
    // Every message of the batch starts its history with the same entry.
    [
      batch.accountId,
      batch.now,
      batch.trafficCenterId,
      JSON.stringify(rows),
      JSON.stringify([{ status: 'sending', at: batch.now.toISOString() }]),
      batch.leaseUntil,
      batch.sendingMethod,
      DEFAULT_TTL_SECONDS,
      batch.currency,
    ],
  );
}

export async function messageCount(db: Queryable, accountId: number): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*) AS n FROM messages WHERE account_id = $1', [accountId]);
  return row!.n;
}
