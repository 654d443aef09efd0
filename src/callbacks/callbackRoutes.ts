import { Type } from 'typebox';
import {
  accountGet,
  accountSetCallbackSecret,
  newCallbackSecret,
  principalOf,
  requireToken,
} from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { errorResponses, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { maskCallbackUrl } from '../shared/callbackUrlMask.js';
import { isoUtc } from '../util/time.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { callbackPostGet, callbackPostList, callbackPostReplay, type CallbackPostRow } from './postSql.js';

const Delivery = Type.Object({
  id: Type.String({ description: 'The X-Herald-Delivery id, the same on every attempt' }),
  url: Type.String({ description: 'Callback URL, credentials masked' }),
  state: Type.Enum(['open', 'delivered', 'failed']),
  replay: Type.Boolean(),
  events: Type.Integer(),
  attempts: Type.Integer(),
  nextAttemptTime: Type.Union([Type.String(), Type.Null()]),
  lastAttemptTime: Type.Union([Type.String(), Type.Null()]),
  lastHttpStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdTime: Type.String(),
  finishedTime: Type.Union([Type.String(), Type.Null()]),
});

function callbackPostToApi(row: CallbackPostRow) {
  return {
    id: row.id,
    url: maskCallbackUrl(row.url),
    state: row.state,
    replay: row.replay,
    events: row.events,
    attempts: row.attempts,
    nextAttemptTime: row.state === 'open' ? isoUtc(row.next_attempt_at) : null,
    lastAttemptTime: isoUtc(row.last_attempt_at),
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
    createdTime: isoUtc(row.created_at)!,
    finishedTime: isoUtc(row.finished_at),
  };
}

/** POSTs replayed at most per request. */
const MAX_REPLAY = 1000;
/**
 * The largest valid replay: 1000 POST ids (a string that is no id is answered 409 as an item, so the schema does
 * not bound it; a body is sized for uuids), some 240 KB escaped at worst.
 */
const REPLAY_BODY_LIMIT = bodyLimitFor(
  Type.Object(
    {
      ids: Type.Array(Type.String({ format: 'uuid' }), { maxItems: MAX_REPLAY }),
      allFailed: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
);

/** Callback POSTs, replay, and the signing secret, with TOKEN_2. */
export const callbackRoutes: Routes = (app, ctx) => {
  const auth = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['Callbacks'];

  app.get(
    '/api/v1/callbacks',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Callback deliveries: open (pending or retrying), delivered, failed',
        security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          state: Type.Optional(Type.Enum(['open', 'delivered', 'failed'])),
          message_uuid: Type.Optional(Type.String({ pattern: UUID_PATTERN.source })),
        }),
        response: { 200: paginated(Delivery), ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const { rows, total } = await callbackPostList(
        ctx.db,
        principalOf(request).accountId,
        request.query.state ?? null,
        request.query.message_uuid?.toLowerCase() ?? null,
        perPage,
        (page - 1) * perPage,
      );
      return { items: rows.map(callbackPostToApi), page, per_page: perPage, total };
    },
  );

  app.get(
    '/api/v1/callbacks/:id',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'One delivery with its events and every attempt (time, HTTP status, latency)',
        security,
        params: Type.Object({ id: Type.String() }),
        response: {
          200: Type.Intersect([
            Delivery,
            Type.Object({
              body: Type.Array(Type.Unknown()),
              attemptsLog: Type.Array(
                Type.Object({
                  time: Type.String(),
                  httpStatus: Type.Union([Type.Integer(), Type.Null()]),
                  latencyMs: Type.Integer(),
                  error: Type.Union([Type.String(), Type.Null()]),
                }),
              ),
            }),
          ]),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const id = request.params.id;
      const row = UUID_PATTERN.test(id) ? await callbackPostGet(ctx.db, principalOf(request).accountId, id) : undefined;
      if (!row) throw herald('notFound', { what: `Delivery ${id}` });
      return {
        ...callbackPostToApi(row),
        body: row.bodies,
        attemptsLog: row.attempts_list.map((a) => ({
          time: isoUtc(a.at)!,
          httpStatus: a.http_status,
          latencyMs: a.latency_ms,
          error: a.error,
        })),
      };
    },
  );

  app.post(
    '/api/v1/callbacks/replay',
    {
      onRequest: auth,
      bodyLimit: REPLAY_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Send failed deliveries again (same id, same events, a new retry window)',
        security,
        body: Type.Object(
          {
            ids: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: MAX_REPLAY })),
            allFailed: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false, examples: [{ allFailed: true }] },
        ),
        response: {
          200: Type.Object({
            errors: Type.Boolean(),
            items: Type.Array(Type.Object({ id: Type.String(), code: Type.Integer() })),
          }),
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request) => {
      const { ids, allFailed } = request.body;
      if (!ids === !allFailed) throw herald('unprocessable', { reason: 'Give either ids or allFailed: true' });
      const accountId = principalOf(request).accountId;
      if (allFailed) {
        const replayed = await callbackPostReplay(ctx.db, accountId, 'all-failed', ctx.clock.now());
        return { errors: false, items: replayed.map((id) => ({ id, code: 200 })) };
      }
      const valid = ids!.filter((id) => UUID_PATTERN.test(id)).map((id) => id.toLowerCase());
      const replayed = new Set(valid.length ? await callbackPostReplay(ctx.db, accountId, valid, ctx.clock.now()) : []);
      const items = ids!.map((id) => ({ id, code: replayed.has(id.toLowerCase()) ? 200 : 409 }));
      return { errors: items.some((i) => i.code !== 200), items };
    },
  );

  app.get(
    '/api/v1/callback-secret',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'The secret that signs callbacks (X-Herald-Signature)',
        security,
        response: { 200: Type.Object({ secret: Type.String() }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ secret: (await accountGet(ctx.db, principalOf(request).accountId))!.callback_secret }),
  );

  app.post(
    '/api/v1/callback-secret/rotate',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'Replace the signing secret; callbacks are signed with the new one from now on',
        security,
        response: { 200: Type.Object({ secret: Type.String() }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const secret = newCallbackSecret();
      await accountSetCallbackSecret(ctx.db, principalOf(request).accountId, secret, ctx.clock.now());
      return { secret };
    },
  );
};
