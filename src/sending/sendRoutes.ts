import { Type } from 'typebox';
import { idempotencyKeyOf } from '../idempotency/index.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { errorResponses, IdempotencyHeaders } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { MessageRequest, SendResponse } from './sendSchemas.js';
import { MAX_BATCH, sendMessages } from './sendMessages.js';

/**
 * The values of the largest valid message, as jsonShape.ts counts them (an array or object 8): its 17 fields (42),
 * a WhatsApp content with a header, a footer and three buttons (about 110), 20 tags, 24 hours, 7 days and every
 * callback event (about 90): about 240, and room for fields sent as null.
 */
const MESSAGE_VALUES = 384;

/** The message operations of the client API. */
export const messageRoutes: Routes = (app, ctx) => {
  app.post(
    '/api/v1/message',
    {
      onRequest: requireToken(ctx, ['traffic']),
      // 1000 messages of up to some 16 KiB each (HERALD_BODY_LIMIT): the one route with a big body.
      bodyLimit: ctx.config.bodyLimitBytes,
      config: { jsonValues: MAX_BATCH * MESSAGE_VALUES },
      // The body is validated by validateMessage, which gives the spec's own messages; the schema documents it.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags: ['Messages'],
        summary: 'Send a batch of 1 to 1000 messages',
        security: [{ basicToken: [] }],
        headers: IdempotencyHeaders,
        body: Type.Array(MessageRequest, {
          minItems: 1,
          maxItems: MAX_BATCH,
          examples: [
            [
              { channelType: 'SMS', senderName: 'Herald', destination: '79161234567', content: 'Your code: 4321' },
              {
                channelType: 'VIBER',
                senderName: 'Herald',
                destination: '+7 916 123-45-68',
                content: { contentType: 'text', text: 'Your order 1024 has shipped' },
                tags: ['orders'],
                ttl: 3600,
              },
            ],
          ],
        }),
        response: { 200: SendResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 503) },
      },
    },
    async (request, reply) => {
      const result = await sendMessages(ctx, {
        principal: principalOf(request),
        body: request.body,
        idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
      });
      if (result.replayed) void reply.header('idempotent-replayed', 'true');
      return reply.status(200).send(result.body);
    },
  );
};
