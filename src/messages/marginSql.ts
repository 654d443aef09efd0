import type { Queryable } from '../db/db.js';
import { uuidBound } from '../util/uuid7.js';

/** How the margin report groups the messages sent (DESIGN 21). */
export const MARGIN_GROUPS = ['account', 'route', 'connector', 'day'] as const;
export type MarginGroup = (typeof MARGIN_GROUPS)[number];

const KEYS: Record<MarginGroup, string> = {
  account: 'm.account_id::text',
  // Sent before routes were in the database (or by a route since deleted, whose id stays): its id, or 'none'.
  route: "coalesce(m.route_id::text, 'none')",
  connector: 'm.connector_id',
  day: `to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
};

/** One group's sums in one sale currency and one buy currency (null: messages whose route named no buy price). */
export interface MarginRow {
  readonly key: string;
  readonly currency: string;
  readonly buyCurrency: string | null;
  readonly parts: number;
  /** Decimal text: what the clients were charged (refunds deducted). */
  readonly sell: string;
  /** Decimal text, in buyCurrency: what the carriers are paid by the routes' prices. */
  readonly buy: string | null;
}

/**
 * Sums the messages created in [from, to) that were sent to a carrier (they have a connector), by `groupBy`: parts,
 * the price charged (0 for a refunded one) and the routes' buy prices. One scan of the period's messages, found by
 * their ids (UUIDv7: the partitions of the period only).
 */
export async function messageMargins(
  db: Queryable,
  range: { from: Date; to: Date },
  groupBy: MarginGroup,
): Promise<MarginRow[]> {
  return db.query<MarginRow>(
    `SELECT ${KEYS[groupBy]} AS key, m.currency, m.buy_currency AS "buyCurrency", sum(m.total_parts)::int AS parts,
       sum(CASE WHEN m.price_refunded THEN 0 ELSE m.price END)::text AS sell, sum(m.buy_price)::text AS buy
     FROM messages m
     WHERE m.id >= $1 AND m.id < $2 AND m.created_at >= $3 AND m.created_at < $4 AND m.connector_id IS NOT NULL
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [uuidBound(range.from.getTime(), 'low'), uuidBound(range.to.getTime(), 'low'), range.from, range.to],
  );
}
