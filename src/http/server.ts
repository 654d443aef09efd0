import { randomUUID } from 'node:crypto';
import { AjvCompiler } from '@fastify/ajv-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import type { AppContext } from '../context.js';
import { makeErrorHandler, notFoundHandler } from './errorHandler.js';
import { ErrorBody } from './schemas.js';

/** The server as route modules see it: with TypeBox types for bodies, params and queries. */
export type HeraldApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

const REQUEST_ID = /^[\w\-.:]{1,128}$/;

/** A route module: registers its routes on the server. */
export type Routes = (app: HeraldApp, ctx: AppContext) => void;

/**
 * Builds the HTTP server shell: JSON only, the API's error format for every failure, request ids, the OpenAPI
 * document at /openapi.json and its reference page at /docs. Capabilities add their routes through `routes`.
 */
export async function buildServer(ctx: AppContext, routes: readonly Routes[]): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    // Clients may pass their own request id for tracing; anything else gets a fresh one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // A JSON body is taken as sent: "5" is not 5 and [""] is not null. Query strings and path parameters are text
  // by nature, so they are coerced to the types their schemas declare (and a single value to a list).
  const compilers = AjvCompiler();
  const ajv = { removeAdditional: false, allErrors: false, verbose: true } as const;
  const strict = compilers({}, { customOptions: { ...ajv, coerceTypes: false }, plugins: [] });
  const coercing = compilers({}, { customOptions: { ...ajv, coerceTypes: 'array' }, plugins: [] });
  app.setValidatorCompiler((route) => (route.httpPart === 'body' ? strict : coercing)(route));

  // JSON is the only body the API takes; without this, text/plain would reach handlers as a string.
  app.removeContentTypeParser('text/plain');
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // A stopping server answers what it has and lets the client open its next connection elsewhere.
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: ids in paths would make a series per message.
    const route = request.routeOptions.url ?? 'unmatched';
    ctx.metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    ctx.metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  app.setErrorHandler(makeErrorHandler(ctx.config.bodyLimitBytes));
  app.setNotFoundHandler(notFoundHandler);
  app.addSchema(ErrorBody);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Herald Direct Messaging API',
        version: '1.0.0',
        description:
          'Multi-channel messaging: SMS, FLASHCALL, VOICECODE, VIBER, WHATSAPP and VK. Every error body is ' +
          '`{"error": {"code", "msg"}}`; see docs/errors.md for the catalogue.',
      },
      components: {
        securitySchemes: {
          basicToken: { type: 'http', scheme: 'basic', description: 'Authorization: Basic <TOKEN>' },
          bearerToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <TOKEN>' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <HERALD_ADMIN_TOKEN>' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  for (const register of routes) register(app, ctx);
  await app.ready();
  return app;
}

/** How long a stopping server waits for requests in progress before it cuts their connections. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Stops a server: no new connections, requests in progress are answered (each with `Connection: close`), then
 * every connection is closed. Without this, a keep-alive connection whose request finished after the stop began
 * would hold the process for the whole keep-alive timeout.
 */
export async function closeServer(app: FastifyInstance, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const http = app.server;
  const closing = app.close();
  const sweep = setInterval(() => http.closeIdleConnections(), 50);
  const cut = setTimeout(() => http.closeAllConnections(), graceMs);
  try {
    await closing;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
