import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf, requireToken } from '../accounts/index.js';
import type { AppContext } from '../context.js';
import { herald, HeraldError, showValue } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { ChannelType, errorResponses, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { normaliseDestination } from '../numbering/index.js';
import { TRAFFIC_TYPES } from '../shared/trafficTypes.js';
import { COMMENT_MAX, CSV_HEADER, csvRow, entryOf, readImport, SENDER_NAME_MAX } from './stopListCsv.js';
import {
  STOP_SOURCES,
  type StopEntry,
  type StopSource,
  stopListAdd,
  stopListCount,
  stopListDelete,
  stopListFind,
  stopListGet,
  stopListPage,
  stopListSlice,
} from './stopListSql.js';

/** An import's CSV text, at most: about 10,000 rows of a number, a scope and a short comment. */
export const IMPORT_MAX_CHARS = 500_000;
/** An import's rows, at most: one statement adds them (a second of work on a loaded PGlite, measured 0.3 s). */
export const IMPORT_MAX_ROWS = 10_000;
/** Row errors an import's answer lists; `errorCount` says how many there were. */
const IMPORT_ERRORS_SHOWN = 100;
/** A list's `total` is counted up to this: a list may hold millions, and a count of them is no page's business. */
export const LIST_TOTAL_CAP = 100_000;
/** An export reads its list in slices of this many entries, a turn of the event loop between them. */
const EXPORT_SLICE = 5000;

const StopEntryObject = Type.Object(
  {
    id: Type.Integer(),
    number: Type.String(),
    channelType: Type.Union([ChannelType, Type.Null()], { description: 'null: every channel' }),
    senderName: Type.Union([Type.String(), Type.Null()], { description: 'null: every sender name' }),
    trafficTypes: Type.Union([Type.Array(Type.Enum(TRAFFIC_TYPES)), Type.Null()], {
      description: 'null: every traffic type',
    }),
    source: Type.Enum(STOP_SOURCES),
    comment: Type.Union([Type.String(), Type.Null()]),
    createdTime: Type.String({ format: 'date-time' }),
  },
  { $id: 'StopEntry', description: 'An entry of a stop list' },
);
const StopEntryBody = Type.Object(
  {
    number: Type.String({ maxLength: 64, description: 'MSISDN, as a message destination is given' }),
    channelType: Type.Optional(Type.Union([ChannelType, Type.Null()])),
    senderName: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: SENDER_NAME_MAX }), Type.Null()])),
    trafficTypes: Type.Optional(
      Type.Union([
        Type.Array(Type.Enum(TRAFFIC_TYPES), { minItems: 1, maxItems: TRAFFIC_TYPES.length, uniqueItems: true }),
        Type.Null(),
      ]),
    ),
    comment: Type.Optional(Type.Union([Type.String({ maxLength: COMMENT_MAX }), Type.Null()])),
  },
  {
    additionalProperties: false,
    examples: [
      {
        number: '+7 903 123-45-67',
        channelType: 'SMS',
        senderName: 'Lavka',
        trafficTypes: ['PROMO'],
        comment: 'Просьба абонента по телефону',
      },
    ],
  },
);
const ImportBody = Type.Object(
  {
    csv: Type.String({
      maxLength: IMPORT_MAX_CHARS,
      description:
        'CSV text: a header row naming the columns (number required; channelType, senderName, trafficTypes ' +
        "separated by ';', comment), then an entry a row; an export's file imports as it is",
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        csv:
          'number,channelType,senderName,trafficTypes,comment\n' +
          '79031234568,SMS,Lavka,PROMO;SERVICE,Жалоба в поддержку\n' +
          '79261234569,,,,Отписка с сайта\n',
      },
    ],
  },
);
const ImportResult = Type.Object({
  rows: Type.Integer({ description: 'rows read after the header' }),
  added: Type.Integer(),
  existing: Type.Integer({ description: 'valid rows already on the list (or repeated in the file): nothing added' }),
  errorCount: Type.Integer(),
  errors: Type.Array(Type.Object({ line: Type.Integer(), msg: Type.String() }), {
    description: `the first ${IMPORT_ERRORS_SHOWN} rows that were not added, and why`,
  }),
});
// Built once, at start-up; the order of its fields is the OpenAPI document's.
// eslint-disable-next-line no-restricted-syntax
const ListQuery = Query({
  ...PAGE_PARAMETERS,
  number: Type.Optional(Type.String({ maxLength: 64 })),
  channelType: Type.Optional(ChannelType),
  senderName: Type.Optional(Type.String({ maxLength: SENDER_NAME_MAX })),
  source: Type.Optional(Type.Enum(STOP_SOURCES)),
});

const toApi = (e: StopEntry) => ({
  id: e.id,
  number: e.number,
  channelType: e.channelType,
  senderName: e.senderName,
  trafficTypes: e.trafficTypes,
  source: e.source,
  comment: e.comment,
  createdTime: e.createdAt.toISOString(),
});

/** The two lists' routes differ in their prefix, who may call them, whose list it is and the source of an add. */
interface ListSide {
  readonly prefix: string;
  readonly tags: string[];
  readonly security: Record<string, string[]>[];
  readonly onRequest: (ctx: AppContext) => (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  readonly listOf: (request: FastifyRequest) => number | null;
  readonly addSource: StopSource;
}

/**
 * The routes of one stop list (DESIGN 20): add (idempotent: 201 with a new entry, 200 with the one already there),
 * list with filters, get, delete, CSV import and export.
 */
const stopListRoutesOf =
  (side: ListSide): Routes =>
  (app, ctx) => {
    const onRequest = side.onRequest(ctx);
    const { tags, security, prefix, listOf } = side;
    const notFound = (id: number) => herald('notFound', { what: `Stop list entry ${id}` });

    app.post(
      prefix,
      {
        onRequest,
        bodyLimit: bodyLimitFor(StopEntryBody),
        schema: {
          tags,
          summary: 'Add a number; absent scope fields match everything',
          description: 'The same number and scope again changes nothing and answers 200 with the entry there.',
          security,
          body: StopEntryBody,
          response: { 200: StopEntryObject, 201: StopEntryObject, ...errorResponses(401, 403, 422) },
        },
      },
      async (request, reply) => {
        const entry = entryOf(request.body, side.addSource);
        if (entry instanceof HeraldError) throw entry;
        const list = listOf(request);
        const added = await stopListAdd(ctx.db, list, [entry], ctx.clock.now());
        const stored = await stopListFind(ctx.db, list, entry);
        return reply.status(added > 0 ? 201 : 200).send(toApi(stored!));
      },
    );

    app.get(
      prefix,
      {
        onRequest,
        schema: {
          tags,
          summary: 'Entries of the list, newest first, by number, channel, sender name or source',
          description: `total is counted up to ${LIST_TOTAL_CAP}.`,
          security,
          querystring: ListQuery,
          response: { 200: paginated(StopEntryObject), ...errorResponses(401, 403, 422) },
        },
      },
      async (request) => {
        const q = request.query;
        let number: string | null = null;
        if (q.number !== undefined) {
          number = normaliseDestination(q.number)?.msisdn ?? null;
          if (number === null) throw herald('invalidField', { field: 'number', value: showValue(q.number) });
        }
        const page = q.page ?? 1;
        const perPage = q.per_page ?? 100;
        const filter = {
          number,
          channelType: q.channelType ?? null,
          senderName: q.senderName ?? null,
          source: q.source ?? null,
        };
        const list = listOf(request);
        const [rows, total] = [
          await stopListPage(ctx.readDb, list, filter, perPage, (page - 1) * perPage),
          await stopListCount(ctx.readDb, list, filter, LIST_TOTAL_CAP),
        ];
        return { items: rows.map(toApi), page, per_page: perPage, total };
      },
    );

    app.get(
      `${prefix}/export`,
      {
        onRequest,
        schema: {
          tags,
          summary: 'The whole list as CSV (the columns an import reads, and id, source, createdTime)',
          security,
          produces: ['text/csv'],
          response: { 200: Type.String({ description: 'text/csv' }), ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        const list = listOf(request);
        const db = ctx.readDb;
        async function* rows(): AsyncGenerator<string> {
          yield CSV_HEADER;
          for (let after = 0; ;) {
            const slice = await stopListSlice(db, list, after, EXPORT_SLICE);
            if (slice.length > 0) yield slice.map(csvRow).join('');
            if (slice.length < EXPORT_SLICE) return;
            after = slice[slice.length - 1]!.id;
          }
        }
        return (
          reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', 'attachment; filename="stop-list.csv"')
            // A stream is sent as it is (the schema's string documents it): the list is never whole in memory.
            .send(Readable.from(rows()) as unknown as string)
        );
      },
    );

    app.post(
      `${prefix}/import`,
      {
        onRequest,
        bodyLimit: bodyLimitFor(ImportBody),
        schema: {
          tags,
          summary: 'Add the rows of a CSV file; each invalid row reported, the valid ones added',
          description: `At most ${IMPORT_MAX_ROWS} rows and ${IMPORT_MAX_CHARS} characters.`,
          security,
          body: ImportBody,
          response: { 200: ImportResult, ...errorResponses(401, 403, 413, 422) },
        },
      },
      async (request) => {
        const { entries, errors, rows } = readImport(
          request.body.csv,
          side.addSource === 'api' ? 'import' : 'operator',
        );
        if (rows > IMPORT_MAX_ROWS) throw herald('tooManyRows', { limit: IMPORT_MAX_ROWS });
        const added = await stopListAdd(ctx.db, listOf(request), entries, ctx.clock.now());
        return {
          rows,
          added,
          existing: entries.length - added,
          errorCount: errors.length,
          errors: errors.slice(0, IMPORT_ERRORS_SHOWN),
        };
      },
    );

    app.get(
      `${prefix}/:id`,
      {
        onRequest,
        schema: {
          tags,
          summary: 'One entry',
          security,
          params: IdParam,
          response: { 200: StopEntryObject, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const entry = await stopListGet(ctx.db, listOf(request), request.params.id);
        if (!entry) throw notFound(request.params.id);
        return toApi(entry);
      },
    );

    app.delete(
      `${prefix}/:id`,
      {
        onRequest,
        schema: {
          tags,
          summary: 'Delete an entry: its number may be sent to again (unless another entry lists it)',
          security,
          params: IdParam,
          response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        if (!(await stopListDelete(ctx.db, listOf(request), request.params.id))) throw notFound(request.params.id);
        return reply.status(204).send(null);
      },
    );
  };

/** The account's stop list, with TOKEN_2: adds are source `api`, imports `import`. */
export const stopListRoutes: Routes = stopListRoutesOf({
  prefix: '/api/v1/stop-list',
  tags: ['Stop list'],
  security: [{ basicToken: [] }],
  onRequest: (ctx) => requireToken(ctx, ['system']),
  listOf: (request) => principalOf(request).accountId,
  addSource: 'api',
});

/** The operator's stop list, for every account: adds and imports are source `operator`. */
export const adminStopListRoutes: Routes = stopListRoutesOf({
  prefix: '/admin/v1/stop-list',
  tags: ['Operator: stop list'],
  security: [{ adminToken: [] }],
  onRequest: (ctx) => requireAdmin(ctx),
  listOf: () => null,
  addSource: 'operator',
});
