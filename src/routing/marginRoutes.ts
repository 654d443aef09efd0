import { Type } from 'typebox';
import { herald, showValue } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { MARGIN_GROUPS, type MarginRow, messageMargins } from '../messages/index.js';
import { fromMicros, type Micros, toMicros } from '../money/index.js';
import { statsRange } from '../statistics/index.js';
import { DAY_MS } from '../util/time.js';
import { convertOrRefuse } from './exchange.js';

/** The longest period one report reads: its cost is one scan of the period's messages. */
export const MARGIN_MAX_DAYS = 31;

const Amount = Type.Number({ description: 'in the currency of the item' });

const MarginReport = Type.Object({
  from: Type.String(),
  to: Type.String(),
  groupBy: Type.Enum(MARGIN_GROUPS),
  items: Type.Array(
    Type.Object({
      key: Type.String({
        description:
          "the account's id, the route's id ('none': sent without a route of the table), the connector, or the UTC day",
      }),
      currency: Type.String({ description: "the sale's: the accounts' currency" }),
      parts: Type.Integer({ description: 'parts sent' }),
      sell: Amount,
      buy: Amount,
      margin: Amount,
      unpriced: Type.Integer({ description: 'parts sent by a route connector without a buy price (counted as 0)' }),
    }),
  ),
});

/**
 * GET /admin/v1/reports/margin (DESIGN 21): what the messages sent in a period were sold and bought for, by account,
 * route, connector or day. Buy prices in another currency than the sale's are converted at HERALD_EXCHANGE_RATES;
 * without a rate the report is refused (422) and names the pair.
 */
export const adminMarginRoutes: Routes = (app, ctx) => {
  app.get(
    '/admin/v1/reports/margin',
    {
      onRequest: requireAdmin(ctx),
      schema: {
        tags: ['Operator: routes'],
        summary: 'Margins of the messages sent in a period, by account, route, connector or day',
        description: `Messages created in [from, to) and sent; at most ${MARGIN_MAX_DAYS} days (30 by default).`,
        security: [{ adminToken: [] }],
        querystring: Query({
          from: Type.Optional(
            Type.String({ maxLength: 64, description: 'ISO 8601 time or date (default: 30 days before to)' }),
          ),
          to: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601 time or date (default: now)' })),
          groupBy: Type.Optional(Type.Enum(MARGIN_GROUPS, { description: 'day when not given' })),
        }),
        response: { 200: MarginReport, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const groupBy = request.query.groupBy ?? 'day';
      const { from, to } = statsRange(request.query, ctx.clock.now());
      if (to.getTime() - from.getTime() > MARGIN_MAX_DAYS * DAY_MS)
        throw herald('invalidField', {
          field: 'to',
          value: `${showValue(request.query.to ?? to.toISOString())} (at most ${MARGIN_MAX_DAYS} days after from)`,
        });
      const rows = await messageMargins(ctx.readDb, { from, to }, groupBy);
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        groupBy,
        items: marginItems(rows, ctx.config.exchangeRates),
      };
    },
  );
};

/** The rows summed per key and sale currency, buy prices converted into it. */
export function marginItems(rows: readonly MarginRow[], rates: ReadonlyMap<string, number>) {
  const items = new Map<
    string,
    { key: string; currency: string; parts: number; sell: Micros; buy: Micros; unpriced: number }
  >();
  for (const row of rows) {
    const id = `${row.key}\u0000${row.currency}`;
    const item = items.get(id) ?? { key: row.key, currency: row.currency, parts: 0, sell: 0n, buy: 0n, unpriced: 0 };
    item.parts += row.parts;
    item.sell += toMicros(row.sell);
    if (row.buyCurrency === null || row.buy === null) item.unpriced += row.parts;
    else {
      item.buy += toMicros(convertOrRefuse({ amount: row.buy, currency: row.buyCurrency }, row.currency, rates));
    }
    items.set(id, item);
  }
  return [...items.values()].map((i) => ({
    key: i.key,
    currency: i.currency,
    parts: i.parts,
    sell: Number(fromMicros(i.sell)),
    buy: Number(fromMicros(i.buy)),
    margin: Number(fromMicros(i.sell - i.buy)),
    unpriced: i.unpriced,
  }));
}
