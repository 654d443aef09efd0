import { Type } from 'typebox';
import { CALLBACK_EVENTS } from '../callbacks/index.js';
import { ChannelType } from '../http/schemas.js';
import { LIMITS } from './validateMessage.js';

const HttpLink = Type.String({ format: 'uri', pattern: '^https?://', description: 'an absolute http(s) URL' });

/** WHATSAPP header, footer and buttons (spec 2.4). */
const Decorations = {
  header: Type.Optional(
    Type.Object(
      {
        text: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
        documentUrl: Type.Optional(HttpLink),
        documentName: Type.Optional(Type.String()),
        imageUrl: Type.Optional(HttpLink),
      },
      { description: 'One of: text; documentUrl (+ documentName); imageUrl' },
    ),
  ),
  footer: Type.Optional(Type.Object({ text: Type.String({ minLength: 1, maxLength: 60 }) })),
  buttons: Type.Optional(
    Type.Array(
      Type.Object({
        text: Type.String({ minLength: 1, maxLength: 20 }),
        url: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, pattern: '^http' })),
        phone: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
        payload: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
      }),
      {
        minItems: 1,
        maxItems: 3,
        description: 'Link buttons (url or phone, at most 2) or text buttons (payload, at most 3)',
      },
    ),
  ),
};

/**
 * The message request object of spec 2.1, for the OpenAPI document; the rules themselves live in validateMessage.ts.
 */
export const MessageRequest = Type.Object(
  {
    channelType: ChannelType,
    senderName: Type.String({
      maxLength: LIMITS.senderName,
      description:
        'SMS and WHATSAPP: an approved, started sender name; TELEGRAM: the username of a bot that is such a sender ' +
        'name, with its bot token attached (5 to 32 letters, digits and _, ending in bot); VOICECODE: voicecode',
    }),
    destination: Type.String({
      description: 'Subscriber number: +7 916 123-45-67, 89161234567 and 79161234567 are one number',
      examples: ['79161234567'],
    }),
    content: Type.Union([
      Type.String({
        description: 'SMS, VK text; FLASHCALL 4-digit code; TELEGRAM text, stored as {"contentType": "text", "text"}',
      }),
      Type.Integer({ minimum: 1000, maximum: 9999, description: 'FLASHCALL code as a number, stored as a string' }),
      Type.Object(
        { contentType: Type.Literal('text'), text: Type.String({ minLength: 1, maxLength: 4096 }) },
        {
          title: 'VOICECODE, WHATSAPP/VIBER or TELEGRAM text',
          description:
            'VOICECODE, WHATSAPP and VIBER up to 1000 characters; TELEGRAM up to 4096, sent by the Bot API (' +
            'contentType may be left out)',
        },
      ),
      Type.Object(
        { contentType: Type.Literal('code'), code: Type.String({ pattern: '^[0-9]{4,8}$' }) },
        {
          title: 'TELEGRAM verification code',
          description:
            '4 to 8 digits, sent by the Telegram Gateway API in its verification message; ttl 30 to 3600 s, 3600 ' +
            'when left out',
        },
      ),
      Type.Object(
        {
          contentType: Type.Literal('image'),
          imageUrl: HttpLink,
          imageName: Type.Optional(Type.String()),
          ...Decorations,
        },
        { title: 'WHATSAPP/VIBER image' },
      ),
      Type.Object(
        { contentType: Type.Literal('document'), documentUrl: HttpLink, documentName: Type.String(), ...Decorations },
        { title: 'WHATSAPP document' },
      ),
      Type.Object(
        {
          contentType: Type.Literal('button'),
          text: Type.String(),
          caption: Type.String(),
          action: Type.String(),
          imageUrl: Type.Optional(Type.String()),
        },
        { title: 'VIBER button' },
      ),
    ]),
    tags: Type.Optional(
      Type.Array(Type.String({ pattern: '^[\\p{L}\\p{N}_]+$', maxLength: LIMITS.tagLength }), {
        maxItems: LIMITS.tags,
      }),
    ),
    useLocalTime: Type.Optional(Type.Boolean({ default: true })),
    localSendTime: Type.Optional(
      Type.String({ description: 'YYYY-MM-DD hh:mm:ss, from now UTC - 12 h to now UTC + 7 days' }),
    ),
    localCompletionTime: Type.Optional(
      Type.String({ description: 'YYYY-MM-DD hh:mm:ss, from max(localSendTime, now UTC) to now UTC + 70 days' }),
    ),
    ttl: Type.Optional(
      Type.Integer({
        description: 'seconds: 60 to 86400 (VOICECODE 30 to 86400; a TELEGRAM code 30 to 3600, 3600 when left out)',
      }),
    ),
    hours: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 23 }), { uniqueItems: true, minItems: 1 })),
    days: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { uniqueItems: true, minItems: 1 })),
    shortUrl: Type.Optional(Type.Boolean({ default: false })),
    callbackUrl: Type.Optional(Type.String({ format: 'uri', maxLength: LIMITS.callbackUrl })),
    callbackEvents: Type.Optional(Type.Array(Type.Enum(CALLBACK_EVENTS), { uniqueItems: true, minItems: 1 })),
    externalMessageId: Type.Optional(Type.String({ maxLength: 100, description: 'VOICECODE only' })),
  },
  { description: 'Message request object (spec 2.1); which optional fields a channel accepts is in spec 2.2' },
);

export const SendResponse = Type.Object({
  errors: Type.Boolean({ description: 'false guarantees that every message was generated' }),
  items: Type.Array(
    Type.Object({
      messageUuid: Type.Optional(Type.String({ format: 'uuid' })),
      code: Type.Integer({ description: '201 created, else an item error code (4020, 4031, 4221)' }),
      msg: Type.Optional(Type.String()),
    }),
  ),
});
