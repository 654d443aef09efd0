import type { Queryable } from '../db/db.js';
import { ledgerCreditCte } from '../accounts/index.js';
import { eventSelect, insertEventsCte, PRICE_EVENT_ORDER, priceExtra, wantsEvent } from '../callbacks/index.js';
import { priceEvent } from './transitionSql.js';
import { dirtyDaysCte } from '../db/dirtyDaysSql.js';

/** What became of a carrier's refund of a submission. */
export type CarrierRefund = 'refunded' | 'already' | 'not-final' | 'unknown';

/**
 * The carrier refunded a submission it could not deliver (Telegram's Gateway: `is_refunded`, DESIGN 18): the client's
 * price goes back to the balance, with a `price` event of 0, once the message is final (its price is final: the
 * receipt that made it undelivered is recorded first). Its submission finds the message. One statement; a refund
 * reported again changes nothing. `not-final` asks the caller to have the report sent again later.
 */
export async function messageCarrierRefund(
  db: Queryable,
  refund: { connectorId: string; carrierId: string; at: Date },
): Promise<CarrierRefund> {
  const rows = await db.query<{ outcome: CarrierRefund }>(
    `WITH target AS (
       SELECT m.account_id, m.id, m.price_final, m.price_refunded, m.price
       FROM submissions s JOIN messages m ON m.account_id = s.account_id AND m.id = s.message_id
       WHERE s.connector_id = $1 AND s.carrier_id = $2
       FOR UPDATE OF m
     ),
     mv AS (
       UPDATE messages m SET price_refunded = true
       FROM target t
       WHERE m.account_id = t.account_id AND m.id = t.id AND t.price_final AND NOT t.price_refunded AND t.price > 0
       RETURNING m.account_id, m.id, m.created_at, m.channel_type, m.callback_target_id, m.callback_events,
         m.cascade_id, m.cascade_step, m.total_parts, m.currency, m.price, $3::timestamptz AS at
     ),
     ${ledgerCreditCte('(SELECT account_id, currency, price AS amount FROM mv)', 'refund', '$3::timestamptz')},
     events AS (
       ${eventSelect(priceEvent(priceExtra('mv', '0')), 'mv', wantsEvent('mv', "'price'"), String(PRICE_EVENT_ORDER))}
     ),
     ${insertEventsCte('events', '')},
     ${dirtyDaysCte('mv')}
     SELECT CASE
       WHEN EXISTS (SELECT 1 FROM mv) THEN 'refunded'
       WHEN NOT EXISTS (SELECT 1 FROM target) THEN 'unknown'
       WHEN (SELECT price_refunded OR price = 0 FROM target LIMIT 1) THEN 'already'
       WHEN NOT (SELECT price_final FROM target LIMIT 1) THEN 'not-final'
       ELSE 'already' END AS outcome`,
    [refund.connectorId, refund.carrierId, refund.at],
  );
  return rows[0]!.outcome;
}
