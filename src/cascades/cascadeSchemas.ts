import { Type } from 'typebox';
import { CALLBACK_EVENTS } from '../callbacks/index.js';
import { ChannelType } from '../http/schemas.js';
import { MessageObject } from '../messages/index.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import { CONDITIONS, MAX_STEPS } from './validateCascade.js';

/** The request and answers of the cascade operations, for the OpenAPI document (validateCascade.ts validates). */

const Step = Type.Object(
  {
    channelType: ChannelType,
    senderName: Type.String({ maxLength: 200 }),
    content: Type.Union([
      Type.String({ maxLength: 10_000 }),
      Type.Object({}, { additionalProperties: true, description: 'as for a message of the channel, or {text}' }),
    ]),
    ttl: Type.Optional(Type.Integer({ description: "seconds, the channel's bounds" })),
    externalMessageId: Type.Optional(Type.String({ maxLength: 100, description: 'VOICECODE only' })),
    condition: Type.Optional(
      Type.Enum(CONDITIONS, {
        description:
          'when the next step follows; required on every step but the last, refused on the last; not_read only ' +
          'after a step with read receipts (VIBER, VK, WHATSAPP, a TELEGRAM code)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CascadeRequest = Type.Object(
  {
    destination: Type.String({ maxLength: 100 }),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 })),
    trafficType: Type.Optional(Type.Enum(TRAFFIC_TYPES)),
    useLocalTime: Type.Optional(Type.Boolean()),
    localSendTime: Type.Optional(Type.String({ maxLength: 40 })),
    localCompletionTime: Type.Optional(Type.String({ maxLength: 40 })),
    hours: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 23 }), { maxItems: 24 })),
    days: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { maxItems: 7 })),
    shortUrl: Type.Optional(Type.Boolean()),
    callbackUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    callbackEvents: Type.Optional(Type.Array(Type.Enum(CALLBACK_EVENTS), { uniqueItems: true, minItems: 1 })),
    cascade: Type.Array(Step, { minItems: 1, maxItems: MAX_STEPS }),
  },
  {
    additionalProperties: false,
    description:
      'A cascade: the common fields of a message and 1-6 steps; each next step is created when the one before ' +
      'ends as its condition says',
  },
);

/** GET /api/v1/message/cascade/{uuid}: the chain, step by step. */
export const CascadeObject = Type.Object({
  cascadeMessageUuid: Type.String({ format: 'uuid' }),
  state: Type.Enum(['running', 'done', 'stopped'], {
    description: 'running: a step is on its way or awaited; done: it ended; stopped: by the client',
  }),
  currentStep: Type.Integer({ description: 'the last step created (1-based)' }),
  stepCount: Type.Integer(),
  createdTime: Type.String(),
  endedTime: Type.Union([Type.String(), Type.Null()]),
  steps: Type.Array(
    Type.Object({
      step: Type.Integer(),
      channelType: ChannelType,
      senderName: Type.String(),
      condition: Type.Union([Type.Enum(CONDITIONS), Type.Null()]),
      movedOn: Type.Union([Type.String(), Type.Null()], {
        description:
          'why the next step was created: undelivered, unsent, unread, or timeout (a verification step not ' +
          'confirmed in time); null when it was not (or not yet)',
      }),
      message: Type.Union([MessageObject, Type.Null()], { description: 'null: the step was not created' }),
    }),
  ),
});
