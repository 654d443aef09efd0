import { UUID_PATTERN, uuidBound } from '../util/uuid7.js';
import { Type } from 'typebox';
import { readOwnWrite } from '../db/replica.js';
import { herald, showValue } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { ChannelType, errorResponses, Id, MAX_PAGE } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { normaliseDestination } from '../numbering/index.js';
import { messageListTotal, type RolledUpDays } from './listTotal.js';
import { messageGet, messageList } from './messageLookupSql.js';
import { type CascadeStopper, messagesStop } from './stopMessages.js';
import { messageToApi } from './messageObject.js';
import { MessageObject } from './messageSchemas.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';

/** page * per_page may not pass this: deep pages are for the time filters. */
export const MAX_LIST_DEPTH = 10_000;
export const MAX_STOP = 10_000;
/**
 * The largest valid stop request: 10,000 message uuids (a string that is no uuid is answered 404 as an item, so the
 * schema does not bound it; a body is sized for uuids), some 2.3 MB escaped at worst.
 */
const STOP_BODY_LIMIT = bodyLimitFor(
  Type.Object(
    { uuids: Type.Array(Type.String({ format: 'uuid' }), { maxItems: MAX_STOP }) },
    { additionalProperties: false },
  ),
);

const STATUSES = ['sending', 'sent', 'delivered', 'undelivered', 'unsent', 'read', 'unread', 'inbound_sent'] as const;
const READ_STATUSES = ['read', 'unread'] as const;
const COUNTRY = /^[A-Za-z]{2}$/;
/**
 * The longest time range an `error_code` filter reads when no key (destination, dispatch, cascade, uuid) narrows it:
 * no index holds error codes (each would cost every status change, docs/delivery.md, Listing), so its page and
 * total read the range's messages; 31 days of a busy account (1,000,000 messages) count in some 250-400 ms.
 */
export const ERROR_FILTER_MAX_DAYS = 31;
const DAY_MS = 86_400_000;

/** GET /api/v1/message/{uuid}, GET /api/v1/message and POST /api/v1/message/stop, with TOKEN_1. */
export const lookupRoutes =
  ({ cascades: stopper, rollup }: { cascades: CascadeStopper; rollup: RolledUpDays }): Routes =>
  (app, ctx) => {
    const auth = requireToken(ctx, ['traffic']);
    const security = [{ basicToken: [] }];
    const tags = ['Messages'];

    app.get(
      '/api/v1/message/:uuid',
      {
        onRequest: auth,
        schema: {
          tags,
          summary: 'One message with its status history',
          security,
          params: Type.Object({ uuid: Type.String() }),
          response: { 200: MessageObject, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const { uuid } = request.params;
        // The replica serves status polls; a message sent a moment ago and not replayed there yet, the primary.
        const row = UUID_PATTERN.test(uuid)
          ? await readOwnWrite(ctx.readDb, ctx.db, (db) =>
              messageGet(db, principalOf(request).accountId, uuid.toLowerCase()),
            )
          : undefined;
        if (!row) throw herald('notFound', { what: `Message ${uuid}` });
        return messageToApi(row);
      },
    );

    app.get(
      '/api/v1/message',
      {
        onRequest: auth,
        schema: {
          tags,
          summary: 'Messages of the account, newest first, with filters',
          description:
            'Outbound messages unless direction is given. An unknown parameter is 422 4220 Invalid <parameter>. ' +
            'status=read and status=unread filter on readStatus, as read_status does.',
          security,
          querystring: Type.Object(
            {
              page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
              per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
              sort: Type.Optional(
                Type.Enum(['created_time', '-created_time', 'asc', 'desc'], {
                  description: 'by creation time; default newest first',
                }),
              ),
              time_from: Type.Optional(
                Type.String({ description: 'ISO 8601 or YYYY-MM-DD hh:mm:ss (UTC), inclusive' }),
              ),
              time_to: Type.Optional(Type.String({ description: 'ISO 8601 or YYYY-MM-DD hh:mm:ss (UTC), inclusive' })),
              message_uuid: Type.Optional(Type.String()),
              destination: Type.Optional(Type.String()),
              status: Type.Optional(Type.Enum(STATUSES, { description: 'read and unread filter on readStatus' })),
              read_status: Type.Optional(Type.Enum(READ_STATUSES)),
              tags: Type.Optional(Type.String({ description: 'comma-separated; messages with any of them' })),
              channel_type: Type.Optional(ChannelType),
              sender_name: Type.Optional(Type.String()),
              traffic_center_id: Type.Optional(Id()),
              direction: Type.Optional(Type.Enum(['outbound', 'inbound'], { default: 'outbound' })),
              content: Type.Optional(
                Type.String({
                  minLength: 1,
                  description:
                    'text the message contains: its text, or of an object content the text, caption, media names, ' +
                    'header, footer and button texts',
                }),
              ),
              sending_method: Type.Optional(Type.Enum(['API', 'UI'])),
              template_id: Type.Optional(Id()),
              country_code: Type.Optional(
                Type.String({ description: "the destination's country, ISO 3166-1 alpha-2" }),
              ),
              cascade_message_uuid: Type.Optional(Type.String({ description: 'the steps of this cascade (its root)' })),
              traffic_type: Type.Optional(Type.Enum(TRAFFIC_TYPES)),
              dispatch_id: Type.Optional(Type.String({ description: 'the messages of this dispatch' })),
              root: Type.Optional(
                Type.Boolean({ description: 'true: first steps and messages outside cascades; false: later steps' }),
              ),
              error_code: Type.Optional(
                Type.Integer({
                  minimum: 0,
                  maximum: 2_147_483_647,
                  description:
                    "messages with this errorCode (Herald's own, docs/errors.md, or a carrier's); needs time_from " +
                    `and time_to at most ${ERROR_FILTER_MAX_DAYS} days apart, or destination, dispatch_id, ` +
                    'cascade_message_uuid or message_uuid',
                }),
              ),
            },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object({
              items: Type.Array(MessageObject),
              page: Type.Integer(),
              per_page: Type.Integer(),
              total: Type.Integer(),
            }),
            ...errorResponses(401, 403, 422),
          },
        },
      },
      async (request) => {
        const q = request.query;
        const page = q.page ?? 1;
        const perPage = q.per_page ?? 100;
        if (page * perPage > MAX_LIST_DEPTH) {
          throw herald('invalidField', {
            field: 'page',
            value: `${page} (page * per_page may not exceed ${MAX_LIST_DEPTH}; narrow time_from/time_to)`,
          });
        }
        if (q.message_uuid !== undefined && !UUID_PATTERN.test(q.message_uuid)) {
          throw herald('invalidField', { field: 'message_uuid', value: showValue(q.message_uuid) });
        }
        if (q.dispatch_id !== undefined && !UUID_PATTERN.test(q.dispatch_id)) {
          throw herald('invalidField', { field: 'dispatch_id', value: showValue(q.dispatch_id) });
        }
        if (q.cascade_message_uuid !== undefined && !UUID_PATTERN.test(q.cascade_message_uuid)) {
          throw herald('invalidField', { field: 'cascade_message_uuid', value: showValue(q.cascade_message_uuid) });
        }
        if (q.country_code !== undefined && !COUNTRY.test(q.country_code)) {
          throw herald('invalidField', { field: 'country_code', value: showValue(q.country_code) });
        }
        const readAsStatus = q.status === 'read' || q.status === 'unread';
        let destination: string | null = null;
        if (q.destination !== undefined) {
          const normalised = normaliseDestination(q.destination);
          if (!normalised) throw herald('invalidMsisdn');
          destination = normalised.msisdn;
        }
        const timeFrom = q.time_from === undefined ? undefined : parseTime(q.time_from, 'time_from');
        const timeTo = q.time_to === undefined ? undefined : parseTime(q.time_to, 'time_to');
        if (q.error_code !== undefined) checkErrorFilterBounds(q, timeFrom, timeTo);
        const filter = {
          fromId: timeFrom === undefined ? null : uuidBound(timeFrom, 'low'),
          toId: timeTo === undefined ? null : uuidBound(timeTo, 'high'),
          messageUuid: q.message_uuid?.toLowerCase() ?? null,
          destination,
          // Old clients ask status=read|unread; the status itself ends at delivered, the read state is apart.
          status: readAsStatus ? null : (q.status ?? null),
          readStatus: [readAsStatus ? q.status : undefined, q.read_status].filter((v) => v !== undefined),
          tags:
            q.tags === undefined
              ? null
              : q.tags
                  .split(',')
                  .map((t) => t.trim())
                  .filter(Boolean),
          channelType: q.channel_type ?? null,
          senderName: q.sender_name ?? null,
          trafficCenterId: q.traffic_center_id ?? null,
          direction: q.direction ?? 'outbound',
          content: q.content ?? null,
          sendingMethod: q.sending_method ?? null,
          templateId: q.template_id ?? null,
          country: q.country_code?.toUpperCase() ?? null,
          cascadeId: q.cascade_message_uuid?.toLowerCase() ?? null,
          root: q.root ?? null,
          trafficType: q.traffic_type ?? null,
          dispatchId: q.dispatch_id?.toLowerCase() ?? null,
          errorCode: q.error_code ?? null,
        };
        const { accountId } = principalOf(request);
        const order = q.sort === 'created_time' || q.sort === 'asc' ? 'asc' : 'desc';
        const now = ctx.clock.now();
        const [rows, total] = await Promise.all([
          messageList(ctx.readDb, accountId, filter, order, perPage, (page - 1) * perPage, now),
          messageListTotal(ctx.readDb, accountId, filter, {
            now,
            retentionDays: ctx.config.retentionDays,
            rollup,
          }),
        ]);
        return { items: rows.map(messageToApi), page, per_page: perPage, total };
      },
    );

    app.post(
      '/api/v1/message/stop',
      {
        onRequest: auth,
        bodyLimit: STOP_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Stop messages that have not been sent yet',
          description:
            'Item codes: 200 will be stopped (becomes unsent), 202 may not be stopped (being handed to the carrier), ' +
            '403 already sent or final, 404 not found. A step of a running cascade stops the cascade from that ' +
            'step on: 200, or 202 while its current step is being handed to the carrier.',
          security,
          body: Type.Object(
            { uuids: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_STOP }) },
            { additionalProperties: false, examples: [{ uuids: ['0b4c5d3e-8f1a-4c2b-9e6d-7a1f2b3c4d5e'] }] },
          ),
          response: {
            200: Type.Object({
              errors: Type.Boolean(),
              items: Type.Array(Type.Object({ messageUuid: Type.String(), code: Type.Integer() })),
            }),
            ...errorResponses(401, 403, 422),
          },
        },
      },
      async (request) => {
        const items = await messagesStop(ctx, stopper, principalOf(request).accountId, request.body.uuids);
        return { errors: items.some((item) => item.code !== 200), items };
      },
    );
  };

/**
 * An `error_code` filter reads the messages of its range (or of its key) one by one: without a key, the range must
 * be given and at most ERROR_FILTER_MAX_DAYS long, so that its cost is bounded; else 422 4220.
 */
function checkErrorFilterBounds(
  q: { destination?: string; dispatch_id?: string; cascade_message_uuid?: string; message_uuid?: string },
  from: number | undefined,
  to: number | undefined,
): void {
  const keyed = [q.destination, q.dispatch_id, q.cascade_message_uuid, q.message_uuid].some((v) => v !== undefined);
  if (keyed) return;
  if (from === undefined || to === undefined || to - from > ERROR_FILTER_MAX_DAYS * DAY_MS) {
    throw herald('invalidField', {
      field: 'error_code',
      value:
        `needs time_from and time_to at most ${ERROR_FILTER_MAX_DAYS} days apart, or destination, dispatch_id, ` +
        'cascade_message_uuid or message_uuid',
    });
  }
}

function parseTime(value: string, field: string): number {
  const text = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw herald('invalidField', { field, value: showValue(value) });
  return ms;
}
