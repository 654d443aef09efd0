import { Type } from 'typebox';
import { csvField } from '../shared/csv.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { herald } from '../errors/catalogue.js';
import { errorResponses, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { normaliseDestination } from '../numbering/index.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import { isoUtc } from '../util/time.js';
import { type ConsentRow, consentInsert, consentList } from './consentSql.js';

const Consent = Type.Object({
  id: Type.String(),
  number: Type.String(),
  senderName: Type.Union([Type.String(), Type.Null()]),
  trafficType: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
  proof: Type.Union([Type.String(), Type.Null()]),
  time: Type.String({ description: 'when the subscriber gave it' }),
  createdTime: Type.String(),
});

const Filters = {
  number: Type.Optional(Type.String({ maxLength: 64 })),
  senderName: Type.Optional(Type.String({ maxLength: 64 })),
  source: Type.Optional(Type.String({ maxLength: 100 })),
};

/** One export's rows at most: a file of a few MB, read in one query (a larger list is exported by filters). */
export const CONSENT_EXPORT_ROWS = 100_000;

const toApi = (row: ConsentRow) => ({
  id: row.id,
  number: row.number,
  senderName: row.sender_name,
  trafficType: row.traffic_type,
  source: row.source,
  proof: row.proof,
  time: isoUtc(row.given_at)!,
  createdTime: isoUtc(row.created_at)!,
});

/**
 * Consents of subscribers to mailings (TOKEN_2, DESIGN 20): record, list, export. The account setting
 * consentRequired refuses messages of those traffic types to numbers without a matching consent (4034).
 */
export const consentRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const tags = ['Consents'];

  /** The filter of a query, its number normalised as messages' destinations are (422 for a number that is none). */
  const filterOf = (q: { number?: string | undefined; senderName?: string | undefined; source?: string }) => {
    const number = q.number === undefined ? undefined : normaliseDestination(q.number)?.msisdn;
    if (q.number !== undefined && number === undefined)
      throw herald('invalidField', { field: 'number', value: q.number });
    return { number, senderName: q.senderName, source: q.source };
  };

  app.post(
    '/api/v1/consents',
    {
      onRequest,
      schema: {
        tags,
        summary: "Record a subscriber's consent; absent senderName and trafficType match every one",
        security,
        body: Type.Object(
          {
            number: Type.String({ maxLength: 64 }),
            senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            trafficType: Type.Optional(Type.Enum(TRAFFIC_TYPES)),
            source: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. web-form' }),
            proof: Type.Optional(Type.String({ maxLength: 2000, description: 'e.g. the form, the address, the text' })),
            time: Type.Optional(Type.String({ format: 'date-time', description: 'when given; default now' })),
          },
          {
            additionalProperties: false,
            examples: [
              {
                number: '+7 916 123-45-67',
                senderName: 'Lavka',
                trafficType: 'PROMO',
                source: 'web-form',
                proof: 'Галочка «Согласен получать акции» при регистрации на lavka.example',
              },
            ],
          },
        ),
        response: { 201: Consent, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const number = normaliseDestination(body.number)?.msisdn;
      if (!number) throw herald('invalidField', { field: 'number', value: body.number });
      const now = ctx.clock.now();
      const givenAt = body.time === undefined ? now : new Date(body.time);
      if (givenAt.getTime() > now.getTime()) throw herald('invalidField', { field: 'time', value: body.time! });
      const row = await consentInsert(
        ctx.db,
        principalOf(request).accountId,
        {
          number,
          senderName: body.senderName ?? null,
          trafficType: body.trafficType ?? null,
          source: body.source,
          proof: body.proof ?? null,
          givenAt,
        },
        now,
      );
      return reply.status(201).send(toApi(row));
    },
  );

  app.get(
    '/api/v1/consents',
    {
      onRequest,
      schema: {
        tags,
        summary: "The account's consents, newest first; filters number, senderName, source",
        security,
        querystring: Query({ ...Filters, ...PAGE_PARAMETERS }),
        response: { 200: paginated(Consent), ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 100;
      const accountId = principalOf(request).accountId;
      const filter = filterOf(request.query);
      const { rows, total } = await consentList(ctx.readDb, accountId, filter, perPage, (page - 1) * perPage);
      return { items: rows.map(toApi), page, per_page: perPage, total };
    },
  );

  app.get(
    '/api/v1/consents/export',
    {
      onRequest,
      schema: {
        tags,
        summary: `The account's consents as CSV, newest first, at most ${CONSENT_EXPORT_ROWS} rows; the list's filters`,
        security,
        querystring: Query(Filters),
        produces: ['text/csv'],
        response: { 200: Type.String(), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const accountId = principalOf(request).accountId;
      const { rows } = await consentList(ctx.readDb, accountId, filterOf(request.query), CONSENT_EXPORT_ROWS, 0);
      const lines = ['id,number,senderName,trafficType,source,proof,time,createdTime'];
      for (const c of rows.map(toApi))
        lines.push(
          [c.id, c.number, c.senderName, c.trafficType, c.source, c.proof, c.time, c.createdTime]
            .map(csvField)
            .join(','),
        );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="consents.csv"')
        .send(`${lines.join('\r\n')}\r\n`);
    },
  );
};
