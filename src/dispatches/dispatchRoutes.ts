import { Type } from 'typebox';
import { herald, showValue } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { idempotencyKeyOf, type IdempotentResult } from '../idempotency/index.js';
import { ChannelType, errorResponses, Id, IdempotencyHeaders, MAX_PAGE } from '../http/schemas.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Routes } from '../http/server.js';
import { readOwnWrite } from '../db/replica.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import { parseQueryTime } from '../util/time.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { listDispatches } from './dispatchList.js';
import { dispatchGet } from './dispatchSql.js';
import {
  addDispatchMessages,
  type Change,
  changeDispatch,
  countsOf,
  createDispatch,
  dispatchToApi,
  MAX_ADD,
  STATUSES,
} from './dispatches.js';
import { AddItemSchema } from './substitutions.js';

const Counters = Type.Object({
  total: Type.Integer(),
  sending: Type.Integer(),
  sent: Type.Integer(),
  delivered: Type.Integer(),
  undelivered: Type.Integer(),
  unsent: Type.Integer(),
});
const DispatchObject = Type.Object({
  dispatchId: Type.String({ format: 'uuid' }),
  dispatchName: Type.String(),
  created: Type.String(),
  localSendTime: Type.Union([Type.String(), Type.Null()]),
  localCompletionTime: Type.Union([Type.String(), Type.Null()]),
  useLocalTime: Type.Boolean(),
  status: Type.Enum(STATUSES),
  channelType: ChannelType,
  source: Type.String({ description: 'the sender name' }),
  message: Type.Unknown({ description: 'the content, with its {placeholders}' }),
  trafficType: Type.Enum(TRAFFIC_TYPES),
  trafficCenterId: Type.Union([Type.Integer(), Type.Null()]),
  speed: Type.Union([Type.Object({ amount: Type.Integer(), unit: Type.Enum(['minute', 'hour']) }), Type.Null()]),
  cascade: Type.Union([Type.Array(Type.Unknown()), Type.Null()], {
    description: 'the steps as given, with their {placeholders}; channelType, source and message are the first',
  }),
  messages: Counters,
  parts: Counters,
});
const DispatchId = Type.Object({ id: Type.String({ maxLength: 100 }) });

/** The key of a request, and its answer marked when it is the stored answer to an earlier one. */
const keyOf = (request: FastifyRequest): string | undefined => idempotencyKeyOf(request.headers['idempotency-key']);
function answer<T>(reply: FastifyReply, result: IdempotentResult<T>): FastifyReply {
  if (result.replayed) void reply.header('idempotent-replayed', 'true');
  return reply.status(result.statusCode).send(result.body);
}

/**
 * The values of one added destination, as jsonShape.ts counts them (an array or object 8): its two fields and
 * room for 100 substitutions (a message's placeholders are a handful).
 */
const DESTINATION_VALUES = 256;

/** The dispatch operations of the client API, with TOKEN_1 (DESIGN 15). */
export const dispatchRoutes: Routes = (app, ctx) => {
  const auth = requireToken(ctx, ['traffic']);
  const security = [{ basicToken: [] }];
  const tags = ['Dispatches'];
  const idOf = (id: string): string => {
    if (!UUID_PATTERN.test(id)) throw herald('notFound', { what: `Dispatch ${id}` });
    return id.toLowerCase();
  };

  app.post(
    '/api/v1/dispatch',
    {
      onRequest: auth,
      bodyLimit: 64 * 1024,
      // createDispatch validates the message as one of its channel, with the spec's own messages.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags,
        summary: 'Create a dispatch: one message, with {placeholders}, for many destinations',
        security,
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            dispatchName: Type.String({ maxLength: 200 }),
            channelType: Type.Optional(ChannelType),
            speed: Type.Optional(
              Type.Object({ amount: Type.Integer({ minimum: 1 }), unit: Type.Enum(['minute', 'hour']) }),
            ),
            cascade: Type.Optional(
              Type.Array(Type.Object({}, { additionalProperties: true }), {
                minItems: 1,
                maxItems: 6,
                description: 'cascade steps (DESIGN 13), instead of channelType, senderName and content',
              }),
            ),
          },
          {
            additionalProperties: true,
            description: 'and the fields of a message but destination',
            examples: [
              {
                dispatchName: 'Акция выходного дня',
                channelType: 'SMS',
                senderName: 'Lavka',
                content: '{name}, скидка 15% на всё до воскресенья! Промокод {code}',
                trafficType: 'PROMO',
              },
            ],
          },
        ),
        response: {
          201: Type.Object({ dispatchId: Type.String({ format: 'uuid' }), status: Type.String() }),
          ...errorResponses(401, 403, 413, 422),
        },
      },
    },
    async (request, reply) =>
      answer(reply, await createDispatch(ctx, principalOf(request), request.body, keyOf(request))),
  );

  app.post(
    '/api/v1/dispatch/:id/messages',
    {
      onRequest: auth,
      bodyLimit: ctx.config.bodyLimitBytes,
      config: { jsonValues: MAX_ADD * DESTINATION_VALUES },
      // Each item is checked against AddItemSchema by addDispatchMessages, which answers a 7401 for it in request
      // order (DESIGN 15): a schema check of the whole body would refuse the batch for one item.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags,
        summary: 'Add 1 to 1000 destinations with their substitutions, before the start',
        description:
          'Items in request order: a messageUuid, or errorCode 7401 (an item not as its schema says, or no valid ' +
          'message: its destination, a placeholder without a substitution, or its text after substitution) or a ' +
          'send code. A text longer than its channel allows (SMS: 255 parts) is refused from its length, unbuilt.',
        security,
        headers: IdempotencyHeaders,
        params: DispatchId,
        body: Type.Array(AddItemSchema, {
          minItems: 1,
          maxItems: MAX_ADD,
          examples: [
            [
              { destination: '79161234567', substitutions: { name: 'Анна', code: 'LAVKA15' } },
              { destination: '+7 903 555-12-34', substitutions: { name: 'Олег', code: 'LAVKA15' } },
            ],
          ],
        }),
        response: {
          200: Type.Array(
            Type.Object({
              destination: Type.Unknown(),
              messageUuid: Type.Optional(Type.String()),
              errorCode: Type.Optional(Type.Integer()),
              msg: Type.Optional(Type.String()),
            }),
          ),
          ...errorResponses(401, 403, 404, 409, 413, 422),
        },
      },
    },
    async (request, reply) =>
      answer(
        reply,
        await addDispatchMessages(ctx, principalOf(request), idOf(request.params.id), request.body, keyOf(request)),
      ),
  );

  for (const change of ['start', 'pause', 'resume', 'stop'] as const satisfies readonly Change[]) {
    app.post(
      `/api/v1/dispatch/:id/${change}`,
      {
        onRequest: auth,
        schema: {
          tags,
          summary: `${change[0]!.toUpperCase()}${change.slice(1)} a dispatch`,
          security,
          headers: IdempotencyHeaders,
          params: DispatchId,
          response: { 200: Type.Object({ dispatchId: Type.String() }), ...errorResponses(401, 403, 404, 409, 422) },
        },
      },
      async (request, reply) =>
        answer(
          reply,
          await changeDispatch(ctx, principalOf(request).accountId, idOf(request.params.id), change, keyOf(request)),
        ),
    );
  }

  app.get(
    '/api/v1/dispatch',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: "The account's dispatches, newest first",
        security,
        querystring: Type.Object(
          {
            created_from: Type.Optional(Type.String()),
            created_to: Type.Optional(Type.String()),
            status: Type.Optional(Type.Enum(STATUSES)),
            dispatch_id: Type.Optional(Type.String()),
            dispatch_name: Type.Optional(Type.String({ maxLength: 200 })),
            traffic_center_id: Type.Optional(Id()),
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
            per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ total: Type.Integer(), items: Type.Array(DispatchObject) }),
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const time = (value: string | undefined, field: string): Date | null => {
        if (value === undefined) return null;
        const ms = parseQueryTime(value);
        if (ms === undefined) throw herald('invalidField', { field, value: showValue(value) });
        return new Date(ms);
      };
      if (q.dispatch_id !== undefined && !UUID_PATTERN.test(q.dispatch_id))
        throw herald('invalidField', { field: 'dispatch_id', value: showValue(q.dispatch_id) });
      const accountId = principalOf(request).accountId;
      const perPage = q.per_page ?? 20;
      return listDispatches(
        ctx.readDb,
        ctx.clock.now(),
        accountId,
        {
          createdFrom: time(q.created_from, 'created_from'),
          createdTo: time(q.created_to, 'created_to'),
          id: q.dispatch_id?.toLowerCase() ?? null,
          name: q.dispatch_name ?? null,
          trafficCenterId: q.traffic_center_id ?? null,
        },
        q.status,
        perPage,
        ((q.page ?? 1) - 1) * perPage,
      );
    },
  );

  app.get(
    '/api/v1/dispatch/:id',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'A dispatch with its counters, exact at the moment',
        security,
        params: DispatchId,
        response: { 200: DispatchObject, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const id = idOf(request.params.id);
      const accountId = principalOf(request).accountId;
      // One just created may not be on the replica yet: then the primary answers, counters and all.
      const found = await readOwnWrite(ctx.readDb, ctx.db, async (db) => {
        const dispatch = await dispatchGet(db, accountId, id);
        return dispatch && dispatchToApi(dispatch, await countsOf(db, ctx.clock.now(), accountId, [id]));
      });
      if (!found) throw herald('notFound', { what: `Dispatch ${id}` });
      return found;
    },
  );
};
