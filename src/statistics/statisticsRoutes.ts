import { Type } from 'typebox';
import { herald, showValue } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { ChannelType, errorResponses, Query } from '../http/schemas.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { statsRange } from './range.js';
import { statistics } from './statistics.js';
import { GROUP_BY } from './statisticsSql.js';

const Group = Type.Object({
  key: Type.String(),
  messages: Type.Integer(),
  parts: Type.Integer(),
  statuses: Type.Record(Type.String(), Type.Integer()),
  price: Type.Record(Type.String(), Type.Number()),
  clicks: Type.Integer(),
  conversions: Type.Integer(),
});

/** GET /api/v1/statistics with TOKEN_2. */
export const statisticsRoutes: Routes = (app, ctx) => {
  app.get(
    '/api/v1/statistics',
    {
      onRequest: requireToken(ctx, ['system']),
      schema: {
        tags: ['Statistics'],
        summary:
          'Outbound messages created in [from, to), grouped: counts per status, parts, prices per currency, ' +
          'clicks, conversions',
        description:
          'from and to: YYYY-MM-DD (UTC midnight) or ISO 8601; default the last 30 days. Days are UTC days. ' +
          'Filters: channelType, senderName, status, tag, trafficType; channel_type, sender_name and traffic_type ' +
          'as the message list spells them. An unknown parameter is 422 4220 Invalid <parameter>.',
        security: [{ basicToken: [] }],
        querystring: Query({
          from: Type.Optional(Type.String()),
          to: Type.Optional(Type.String()),
          groupBy: Type.Optional(Type.Enum(GROUP_BY, { default: 'day' })),
          channelType: Type.Optional(ChannelType),
          channel_type: Type.Optional(ChannelType),
          senderName: Type.Optional(Type.String()),
          sender_name: Type.Optional(Type.String()),
          status: Type.Optional(Type.String()),
          tag: Type.Optional(Type.String()),
          trafficType: Type.Optional(Type.Enum(TRAFFIC_TYPES)),
          traffic_type: Type.Optional(Type.Enum(TRAFFIC_TYPES)),
        }),
        response: {
          200: Type.Object({
            from: Type.String(),
            to: Type.String(),
            groupBy: Type.String(),
            items: Type.Array(Group),
            total: Group,
          }),
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { from, to } = statsRange(q, ctx.clock.now());
      const groupBy = q.groupBy ?? 'day';
      const result = await statistics(ctx.readDb, principalOf(request).accountId, from, to, groupBy, {
        channelType: filterOf(q, 'channelType', 'channel_type'),
        senderName: filterOf(q, 'senderName', 'sender_name'),
        status: q.status ?? null,
        tag: q.tag ?? null,
        trafficType: filterOf(q, 'trafficType', 'traffic_type'),
      });
      return { from: isoUtc(from)!, to: isoUtc(to)!, groupBy, ...result };
    },
  );
};

/** A filter in the statistics' own spelling or the message list's; both, with different values, is 422 4220. */
function filterOf(query: Readonly<Record<string, unknown>>, own: string, list: string): string | null {
  const [mine, theirs] = [query[own] as string | undefined, query[list] as string | undefined];
  if (mine !== undefined && theirs !== undefined && mine !== theirs)
    throw herald('invalidField', { field: list, value: `${showValue(theirs)} (${own} is ${showValue(mine)})` });
  return mine ?? theirs ?? null;
}
