import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { ChannelType, errorResponses, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { SenderName } from './senderNameSchemas.js';
import { checkSenderNameFormat, SENDER_NAME_MAX_LENGTH, senderNameToApi } from './senderNames.js';
import {
  SENDER_NAME_STATUSES,
  senderNameDelete,
  senderNameGet,
  senderNameInsert,
  senderNameList,
} from './senderNameSql.js';

/**
 * The clients' sender names (TOKEN_2): created Pending, approved (with a start date) or rejected
 * (with a comment) by the operator; only Approved names whose start date has come may send.
 */
const SenderNameBody = Type.Object(
  { channelType: ChannelType, name: Type.String(), comment: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false, examples: [{ channelType: 'SMS', name: 'MyShop', comment: 'Order notices' }] },
);
/** The name is checked by checkSenderNameFormat (at most 64 characters), not the schema: sized as that allows. */
const SENDER_NAME_BODY_LIMIT = bodyLimitFor(
  Type.Object(
    { ...SenderNameBody.properties, name: Type.String({ maxLength: SENDER_NAME_MAX_LENGTH }) },
    { additionalProperties: false },
  ),
);

export const senderNameRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['Sender names'];

  app.post(
    '/api/v1/sender-names',
    {
      onRequest,
      bodyLimit: SENDER_NAME_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Register a sender name; it is Pending until the operator decides',
        security,
        body: SenderNameBody,
        response: { 201: SenderName, ...errorResponses(401, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const { channelType, comment } = request.body;
      const name = checkSenderNameFormat(channelType, request.body.name);
      const now = ctx.clock.now();
      const row = await senderNameInsert(ctx.db, {
        accountId: principalOf(request).accountId,
        channelType,
        name,
        status: 'Pending',
        startDate: null,
        comment: comment ?? null,
        now,
      });
      if (!row) throw herald('conflict', { reason: `Sender name already exists: (${channelType}, ${name})` });
      return reply.status(201).send(senderNameToApi(row));
    },
  );

  app.get(
    '/api/v1/sender-names',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's sender names",
        security,
        querystring: Query({
          ...PAGE_PARAMETERS,
          status: Type.Optional(Type.Enum(SENDER_NAME_STATUSES)),
          channelType: Type.Optional(ChannelType),
        }),
        response: { 200: paginated(SenderName), ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const { rows, total } = await senderNameList(
        ctx.db,
        {
          accountId: principalOf(request).accountId,
          status: request.query.status,
          channelType: request.query.channelType,
        },
        perPage,
        (page - 1) * perPage,
      );
      return { items: rows.map(senderNameToApi), page, per_page: perPage, total };
    },
  );

  app.get(
    '/api/v1/sender-names/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'One sender name',
        security,
        params: IdParam,
        response: { 200: SenderName, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const row = await senderNameGet(ctx.db, request.params.id);
      if (!row || row.account_id !== principalOf(request).accountId)
        throw herald('notFound', { what: `Sender name ${request.params.id}` });
      return senderNameToApi(row);
    },
  );

  app.delete(
    '/api/v1/sender-names/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Delete a sender name; it can no longer send',
        security,
        params: IdParam,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await senderNameDelete(ctx.db, principalOf(request).accountId, request.params.id, ctx.clock.now()))) {
        throw herald('notFound', { what: `Sender name ${request.params.id}` });
      }
      return reply.status(204).send(null);
    },
  );
};
