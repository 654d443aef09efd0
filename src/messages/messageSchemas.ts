import { Type } from 'typebox';
import { ChannelType } from '../http/schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Type.String({ description: 'ISO 8601 UTC, e.g. 2026-01-01T08:00:00Z' });

/** An entry of a message's status history (Herald's addition to the message object). */
const HistoryEntry = Type.Object(
  {
    status: Type.String({ description: 'a status, a read status (read, unread), or sending for a retry' }),
    at: Time,
    errorCode: Type.Optional(Type.Integer()),
    detail: Type.Optional(Type.String()),
    connector: Type.Optional(Type.String()),
    retryAt: Type.Optional(Time),
    ignored: Type.Optional(Type.Boolean({ description: 'a late or duplicate receipt that changed nothing' })),
    rerouted: Type.Optional(
      Type.Boolean({
        description:
          "part of a reroute by the operator's route (docs/routing.md): an attempt abandoned for the next connector, " +
          'or the sending again through it; no callback comes of it',
      }),
    ),
  },
  { additionalProperties: true },
);

/**
 * The message object of `GET /api/v1/message/{uuid}` and the list (the real service's fields, status and read status
 * apart), also the `item` of inbound callbacks. Every field is always present; absent values are null.
 */
export const MessageObject = Type.Object(
  {
    messageUuid: Type.String({ format: 'uuid' }),
    createdTime: Time,
    channelType: ChannelType,
    sendingMethod: Type.Enum(['API', 'UI'], { description: 'UI: sent from the personal account pages' }),
    trafficType: Type.Union([Type.Enum(['AUTHORIZE', 'TRANSACT', 'SERVICE', 'PROMO']), Type.Null()]),
    templateId: Type.Union([Type.Integer(), Type.Null()]),
    trafficCenterId: Type.Union([Type.Integer(), Type.Null()]),
    externalMessageId: Nullable(Type.String()),
    senderName: Type.String(),
    destination: Type.String({ description: 'E.164 digits without +' }),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    region: Nullable(Type.String()),
    brand: Nullable(Type.String({ description: 'the operator, where known' })),
    content: Type.Unknown({
      description:
        'a string (SMS, FLASHCALL, VK) or the content object; a TELEGRAM content is always an object: ' +
        '{"contentType": "text", "text"} (however the text was sent) or {"contentType": "code", "code"}',
    }),
    tags: Type.Array(Type.String()),
    ttl: Type.Union([Type.Integer(), Type.Null()], {
      description: 'seconds, as given (null: the default lifetime); a TELEGRAM code given none shows its 3600',
    }),
    hours: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
    days: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
    localSendTime: Nullable(Type.String({ description: 'YYYY-MM-DD hh:mm:ss, as given' })),
    localCompletionTime: Nullable(Type.String({ description: 'YYYY-MM-DD hh:mm:ss, as given' })),
    useLocalTime: Type.Boolean(),
    shortUrl: Type.Boolean(),
    callbackUrl: Nullable(Type.String({ description: 'credentials masked' })),
    callbackEvents: Type.Union([Type.Array(Type.String()), Type.Null()]),
    totalParts: Type.Integer(),
    price: Type.Object({
      totalPrice: Type.Number(),
      currency: Nullable(Type.String({ description: "ISO 4217: the account's currency" })),
      invoicedParts: Type.Integer(),
      final: Type.Boolean(),
    }),
    plannedSendTime: Nullable(Time),
    sentTime: Nullable(Time),
    statusTime: Time,
    status: Type.Enum(['sending', 'sent', 'delivered', 'undelivered', 'unsent', 'inbound_sent'], {
      description: 'the delivery outcome; it stays delivered when the message is read',
    }),
    readStatus: Type.Union([Type.Enum(['read', 'unread']), Type.Null()], {
      description: 'VIBER, VK, WHATSAPP: whether a delivered message was read; null before',
    }),
    cascadeMessageUuid: Nullable(Type.String({ format: 'uuid' })),
    cascadeStep: Type.Union([Type.Integer(), Type.Null()]),
    dispatchId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'its dispatch, or null' }),
    hold: Type.Union([Type.Literal('fraud'), Type.Null()], {
      description: '`fraud`: held by the pumping detection (status `sending`, not sent until the operator releases it)',
    }),
    errorCode: Type.Union([Type.Integer(), Type.Null()]),
    direction: Type.Enum(['outbound', 'inbound']),
    statusHistory: Type.Array(HistoryEntry),
  },
  { description: 'The message object: every field always present, absent values null (docs/delivery.md)' },
);
