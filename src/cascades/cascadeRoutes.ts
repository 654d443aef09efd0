import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { errorResponses, IdempotencyHeaders } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { idempotencyKeyOf } from '../idempotency/index.js';
import { MAX_BATCH, SendResponseSchema } from '../sending/index.js';
import { messageCascadeSteps, messageGet, messageToApi, type MessageRow } from '../messages/index.js';
import { isoUtc } from '../util/time.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { cascadeGet } from './cascadeSql.js';
import { CascadeObject, CascadeRequest } from './cascadeSchemas.js';
import { sendCascades } from './cascades.js';

/**
 * The values of the largest valid cascade, as jsonShape.ts counts them (an array or object 8): its 12 fields, 20
 * tags, 24 hours, 7 days and every callback event (about 130), and 6 steps of 6 fields with a WhatsApp content of
 * a header, a footer and three buttons (about 6 x 130): about 900, and room for fields sent as null.
 */
const CASCADE_VALUES = 1536;

/** The cascade operations of the client API, with TOKEN_1 (Basic or Bearer). */
export const cascadeRoutes: Routes = (app, ctx) => {
  const auth = requireToken(ctx, ['traffic']);
  const security = [{ basicToken: [] }];
  const tags = ['Cascades'];

  app.post(
    '/api/v1/message/cascade',
    {
      onRequest: auth,
      // 1000 cascades of up to 6 steps: as big as a message batch may be (HERALD_BODY_LIMIT).
      bodyLimit: ctx.config.bodyLimitBytes,
      config: { jsonValues: MAX_BATCH * CASCADE_VALUES },
      // validateCascade gives the spec's own messages, with `index` and `step`; the schema documents the body.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags,
        summary: 'Send 1 to 1000 cascades: one notification over a chain of channels',
        description:
          'Each item of the answer names the cascade by its root, the message of its first step. A step is ' +
          'created when the one before ends as its condition says (not_delivered: undelivered or unsent; ' +
          'not_read: also delivered and not read in its lifetime); a delivery (a read for not_read) ends it.',
        security,
        headers: IdempotencyHeaders,
        body: Type.Array(CascadeRequest, {
          minItems: 1,
          maxItems: MAX_BATCH,
          examples: [
            [
              {
                destination: '79161234567',
                tags: ['orders'],
                cascade: [
                  {
                    channelType: 'VIBER',
                    senderName: 'Herald',
                    content: 'Your order 1024 has shipped',
                    ttl: 600,
                    condition: 'not_read',
                  },
                  { channelType: 'SMS', senderName: 'Herald', content: 'Your order 1024 has shipped' },
                ],
              },
            ],
          ],
        }),
        response: { 200: SendResponseSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 503) },
      },
    },
    async (request, reply) => {
      const result = await sendCascades(ctx, {
        principal: principalOf(request),
        body: request.body,
        idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
      });
      if (result.replayed) void reply.header('idempotent-replayed', 'true');
      return reply.status(200).send(result.body);
    },
  );

  app.get(
    '/api/v1/message/cascade/:uuid',
    {
      onRequest: auth,
      schema: {
        tags,
        summary: 'A cascade with each of its steps (by the uuid of any of its messages)',
        security,
        params: Type.Object({ uuid: Type.String() }),
        response: { 200: CascadeObject, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { uuid } = request.params;
      const accountId = principalOf(request).accountId;
      const message = UUID_PATTERN.test(uuid) ? await messageGet(ctx.db, accountId, uuid.toLowerCase()) : undefined;
      const cascade = message?.cascade_id ? await cascadeGet(ctx.db, accountId, message.cascade_id) : undefined;
      if (!cascade) throw herald('notFound', { what: `Cascade ${uuid}` });
      const messages = new Map<number, MessageRow>(
        (await messageCascadeSteps(ctx.db, accountId, cascade.id)).map((m) => [m.cascade_step!, m]),
      );
      return {
        cascadeMessageUuid: cascade.id,
        state: cascade.state,
        currentStep: cascade.current_step,
        stepCount: cascade.step_count,
        createdTime: isoUtc(cascade.created_at)!,
        endedTime: isoUtc(cascade.ended_at),
        steps: cascade.steps.map((step, i) => {
          const row = messages.get(i + 1);
          // A step moved on when the next one exists: it ended undelivered, unsent or unread, or timed out.
          const failed = row?.status === 'undelivered' || row?.status === 'unsent';
          const why =
            row?.read_status === 'unread' ? 'unread' : step.timeout !== undefined && !failed ? 'timeout' : row?.status;
          const movedOn = row && messages.has(i + 2) ? why! : null;
          return {
            step: i + 1,
            channelType: step.message.channelType,
            senderName: step.message.senderName,
            condition: step.condition,
            movedOn,
            message: row ? messageToApi(row) : null,
          };
        }),
      };
    },
  );
};
