import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, IdParam } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { IMPORT_ERRORS_KEPT, MnpImporter } from './mnpImporter.js';
import { MNP_IMPORT_STATES, type MnpImport, mnpImportGet } from './mnpSql.js';

/** The media types a portability file may come as; the body is read as a stream, never whole. */
const CSV_TYPES = ['text/csv', 'text/plain', 'application/octet-stream'];

const tags = ['Operator: number portability'];
const security = [{ adminToken: [] }];

const ImportState = Type.Enum(MNP_IMPORT_STATES);
const ImportAccepted = Type.Object({ importId: Type.Integer(), state: ImportState });
const ImportObject = Type.Object(
  {
    id: Type.Integer(),
    state: ImportState,
    bytes: Type.Integer({ description: 'bytes of the file received' }),
    rows: Type.Integer({ description: 'rows read after the header' }),
    loaded: Type.Integer({ description: 'valid rows loaded' }),
    errorCount: Type.Integer({ description: 'invalid rows, left out' }),
    duplicates: Type.Integer({ description: 'rows of a number the file repeats, left out (the latest port kept)' }),
    errors: Type.Array(Type.Object({ line: Type.Integer(), msg: Type.String() }), {
      description: `the first ${IMPORT_ERRORS_KEPT} invalid rows, by line number, and why`,
    }),
    failure: Type.Union([Type.String(), Type.Null()], { description: 'why a failed import failed' }),
    startedTime: Type.String({ format: 'date-time' }),
    finishedTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'MnpImport', description: 'An import of the number portability base' },
);

const toApi = (i: MnpImport) => ({
  id: i.id,
  state: i.state,
  bytes: i.bytes,
  rows: i.rows,
  loaded: i.loaded,
  errorCount: i.errorCount,
  duplicates: i.duplicates,
  errors: i.errors,
  failure: i.failure,
  startedTime: i.startedAt.toISOString(),
  finishedTime: i.finishedAt?.toISOString() ?? null,
});

/**
 * The number portability base's operator routes (DESIGN 21): import a file of the Russian base (streamed, loaded in
 * the background, swapped in whole), and an import's state.
 */
export const adminMnpRoutes: Routes = (app, ctx) => {
  // Made at the first import: registering the routes reads only the configuration (scripts/openapiTypes.ts).
  let importer: MnpImporter | undefined;
  const importerOf = (): MnpImporter =>
    (importer ??= new MnpImporter({
      db: ctx.db.background?.() ?? ctx.db,
      clock: ctx.clock,
      log: ctx.log,
      planBrands: ctx.plan.brands(),
      ported: ctx.ported,
    }));
  const onRequest = requireAdmin(ctx);
  const limit = ctx.config.mnpBodyLimitBytes;

  // The file is not JSON, and may be gigabytes: a parser of its own, here only, that hands the handler the stream.
  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addHook('onClose', async () => importer?.stop());
    scope.addContentTypeParser(CSV_TYPES, (_request, payload, done) => done(null, payload));
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('*', (_request, _payload, done) => done(herald('csvMediaType'), undefined));
    scope.post(
      '/admin/v1/mnp/import',
      {
        onRequest,
        bodyLimit: limit,
        schema: {
          tags,
          summary: 'Replace the number portability base with a file of the Russian base (CSV)',
          description:
            'The body is the file as the base publishes it (Port_All or Port_All_Full: `Number,OwnerId,MNC,Route,' +
            'RegionCode,PortDate,...`), Content-Type text/csv. Numbers of 10 digits get the country code 7; 11 ' +
            'digits starting with 7 are taken as they are. Answers 202 once the file is received; it is then ' +
            'loaded, indexed and swapped in whole for the current base (GET /admin/v1/mnp/imports/{id} follows it). ' +
            `At most HERALD_MNP_BODY_LIMIT bytes (now ${limit}); one import at a time. See docs/mnp.md.`,
          security,
          consumes: CSV_TYPES,
          response: { 202: ImportAccepted, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        if (Number(request.headers['content-length']) > limit) throw herald('bodyTooLarge', { limit });
        // No body: no parser ran (Fastify parses none), so neither its type nor its emptiness was answered yet.
        if (request.body === undefined || request.body === null) {
          if (!request.headers['content-type']) throw herald('csvMediaType');
          throw herald('badRequest', { reason: 'The body is empty: send the file of the base' });
        }
        const received = await importerOf().receive(request.body as Readable, limit);
        return reply.status(202).send(received);
      },
    );
  });

  app.get(
    '/admin/v1/mnp/imports/:id',
    {
      onRequest,
      schema: {
        tags,
        summary: "An import's state, counts, times and invalid rows",
        security,
        params: IdParam,
        response: { 200: ImportObject, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const found = await mnpImportGet(ctx.db, request.params.id);
      if (!found) throw herald('notFound', { what: `Import ${request.params.id}` });
      return toApi(found);
    },
  );
};
