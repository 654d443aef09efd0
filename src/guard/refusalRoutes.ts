import { Type } from 'typebox';
import { accountGetOr404, principalOf, requireToken } from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import type { Db } from '../db/db.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, IdParam, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { refusalCountList } from './refusalSql.js';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (UTC day)' });
const RangeQuery = Query({ from: Type.Optional(Day), to: Type.Optional(Day) });
const RefusalStatistics = Type.Object({
  from: Type.String(),
  to: Type.String(),
  items: Type.Array(
    Type.Object({
      day: Type.String(),
      channelType: Type.String(),
      code: Type.Integer(),
      monitored: Type.Boolean({ description: 'let through by a monitor-mode setting, not refused' }),
      count: Type.Integer(),
    }),
  ),
  byCode: Type.Record(Type.String(), Type.Integer(), { description: 'refusals per code over the range' }),
});

const DAY_MS = 86_400_000;
/** A year of days at most: the answer stays small (days x channels x codes). */
const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;

/** A calendar day that exists (the pattern lets 0000-00-00 and 2026-02-30 through), else 422 naming the field. */
function checkDay(field: 'from' | 'to', value: string): void {
  const time = Date.parse(value);
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value)
    throw herald('invalidField', { field, value });
}

async function refusalStatistics(db: Db, accountId: number, query: { from?: string; to?: string }, now: Date) {
  const to = query.to ?? now.toISOString().slice(0, 10);
  checkDay('to', to);
  const from = query.from ?? new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  checkDay('from', from);
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days < 1 || days > MAX_DAYS) throw herald('invalidField', { field: 'to', value: `${to}: 1 to ${MAX_DAYS} days` });
  const rows = await refusalCountList(db, accountId, from, to);
  const byCode: Record<string, number> = {};
  for (const r of rows) if (!r.monitored) byCode[r.code] = (byCode[r.code] ?? 0) + r.count;
  return {
    from,
    to,
    items: rows.map((r) => ({
      day: r.day,
      channelType: r.channel_type,
      code: r.code,
      monitored: r.monitored,
      count: r.count,
    })),
    byCode,
  };
}

const SUMMARY =
  'Messages refused at generation (never stored as messages) by day, channel and refusal code, and those a ' +
  'monitor-mode setting let through; default the last 30 days';

/** Statistics by refusal code (DESIGN 20), for the client (TOKEN_2) and for the operator. */
export const refusalRoutes: Routes = (app, ctx) => {
  app.get(
    '/api/v1/statistics/refusals',
    {
      onRequest: requireToken(ctx, ['system']),
      schema: {
        tags: ['Statistics'],
        summary: SUMMARY,
        security: [{ basicToken: [] }],
        querystring: RangeQuery,
        response: { 200: RefusalStatistics, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => refusalStatistics(ctx.readDb, principalOf(request).accountId, request.query, ctx.clock.now()),
  );

  app.get(
    '/admin/v1/accounts/:id/refusals',
    {
      onRequest: requireAdmin(ctx),
      schema: {
        tags: ['Operator: accounts'],
        summary: SUMMARY,
        security: [{ adminToken: [] }],
        params: IdParam,
        querystring: RangeQuery,
        response: { 200: RefusalStatistics, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      await accountGetOr404(ctx.db, request.params.id);
      return refusalStatistics(ctx.readDb, request.params.id, request.query, ctx.clock.now());
    },
  );
};
