import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, Id, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { HOLD_STATUSES, holdGet, holdList, type HoldRow } from './fraudSql.js';
import { decideHold } from './holds.js';

const Hold = Type.Object(
  {
    id: Type.Integer(),
    accountId: Type.Integer(),
    kind: Type.Enum(['range', 'country'], { description: 'what burst: a number range, or a country' }),
    key: Type.String({ description: 'the range (a number without its last 4 digits, e.g. `7900123`) or country' }),
    status: Type.Enum(HOLD_STATUSES),
    messages: Type.Integer({ description: 'messages held in it' }),
    allowance: Type.Integer({ description: 'messages an hour the account was allowed to the key when it opened' }),
    firstTime: Type.String({ format: 'date-time', description: 'when its first message was held' }),
    lastTime: Type.String({ format: 'date-time', description: 'when its last message was held' }),
    decidedTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    trustedUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'released: the key is not held again before this (the end of the UTC day)',
    }),
  },
  { description: 'A burst the pumping detection held for the operator (docs/fraud.md)' },
);

const holdToApi = (h: HoldRow) => ({
  id: h.id,
  accountId: h.account_id,
  kind: h.kind,
  key: h.key,
  status: h.status,
  messages: h.messages,
  allowance: h.allowance,
  firstTime: isoUtc(h.first_at)!,
  lastTime: isoUtc(h.last_at)!,
  decidedTime: isoUtc(h.decided_at),
  trustedUntil: isoUtc(h.trusted_until),
});

/** The operator's fraud holds: the queue of open ones, and the decision on each. */
export const adminHoldRoutes: Routes = (app, ctx) => {
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: fraud holds'];

  app.get(
    '/admin/v1/holds',
    {
      onRequest,
      schema: {
        tags,
        summary: 'List fraud holds, oldest first: the open ones (the default) are waiting for a decision',
        security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          status: Type.Optional(Type.Enum(HOLD_STATUSES)),
          accountId: Type.Optional(Id()),
        }),
        response: { 200: paginated(Hold) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const { rows, total } = await holdList(
        ctx.db,
        { status: request.query.status ?? 'open', accountId: request.query.accountId },
        perPage,
        (page - 1) * perPage,
      );
      return { items: rows.map(holdToApi), page, per_page: perPage, total };
    },
  );

  for (const decision of ['release', 'reject'] as const) {
    app.post(
      `/admin/v1/holds/:id/${decision}`,
      {
        onRequest,
        schema: {
          tags,
          summary:
            decision === 'release'
              ? 'Release a hold: its messages become due, and its range or country is trusted for the rest of the day'
              : 'Reject a hold: each of its messages ends unsent with errorCode 7701, refunded',
          description: 'A hold decided already -> 409 4091; no such hold -> 404 4040.',
          security,
          params: IdParam,
          response: { 200: Hold, ...errorResponses(404, 409) },
        },
      },
      async (request) => {
        const decided = await decideHold(ctx, request.params.id, decision);
        if (decided) return holdToApi(decided);
        const hold = await holdGet(ctx.db, request.params.id);
        if (!hold) throw herald('notFound', { what: `Hold ${request.params.id}` });
        throw herald('conflict', { reason: `Hold ${hold.id} is ${hold.status} already` });
      },
    );
  }
};
