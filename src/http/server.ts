import { randomUUID } from 'node:crypto';
import { AjvCompiler } from '@fastify/ajv-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifySchemaCompiler,
  type FastifySchemaValidationError,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { AppContext } from '../context.js';
import { herald } from '../errors/catalogue.js';
import {
  clientErrorHandler,
  expectationFailed,
  makeErrorHandler,
  MAX_PARAM_LENGTH,
  notFoundHandler,
  routeNotFound,
} from './errorHandler.js';
import { asAccountHandler } from './accountConcurrency.js';
import { bodyLimitFor, BYTES_PER_VALUE, DEFAULT_JSON_VALUES, largestValues, NO_BODY_LIMIT } from './bodyLimits.js';
import { JsonShape } from './jsonShape.js';
import { documentOperation } from './operationDocs.js';
import { ErrorBody, Query } from './schemas.js';

/**
 * The reference page at /docs (Swagger UI) loads its scripts, styles and images from Herald itself and calls only
 * Herald ("Try it out"); it has no inline script. A bearer token typed into its Authorize dialog is kept in the page,
 * so no other script may run there, and no other site may frame it. The spec validator badge (validator.swagger.io)
 * is off (the plugin's default): the page would otherwise send the document's address to a third party. The one
 * inline style is the `<style>` element swagger-ui-bundle.js (swagger-ui-dist 5.32) inserts, allowed by its hash;
 * test/http/docsCsp.browser.test.ts fails on any violation, so a new bundle that needs more is seen at once.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; " +
  "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; " +
  "base-uri 'none'; form-action 'self'";

/** The title of /docs in each language of the pages. */
export const DOCS_TITLE = { en: 'Herald API reference', ru: 'Справочник API Herald' } as const;

/**
 * Run by /docs (theme script, so script-src 'self' allows it): the viewport meta, and the title in Russian when the
 * reader chose Russian on the web pages (localStorage `herald.language`, the same origin) or the browser prefers it
 * to English.
 */
const DOCS_PAGE_SCRIPT = `{
  const meta = document.createElement('meta');
  meta.name = 'viewport';
  meta.content = 'width=device-width, initial-scale=1';
  document.head.append(meta);
  let language = null;
  try { language = localStorage.getItem('herald.language'); } catch {}
  if (language !== 'ru' && language !== 'en')
    language = (navigator.languages || [])
      .map((tag) => tag.toLowerCase().split('-')[0])
      .find((p) => p === 'ru' || p === 'en');
  if (language === 'ru') document.title = ${JSON.stringify(DOCS_TITLE.ru)};
}`;

/**
 * Swagger UI's hook on each "Try it out" request (serialised into its initializer script): a token pasted into
 * basicToken without its scheme is sent as `Basic <token>`, as clients send it.
 */
function docsRequestInterceptor(request: { headers?: Record<string, string> }) {
  const value = request.headers?.Authorization;
  if (request.headers && value && !/^(Basic|Bearer)\s/i.test(value.trim()))
    request.headers.Authorization = `Basic ${value.trim()}`;
  return request;
}

/** The server as route modules see it: with TypeBox types for bodies, params and queries. */
export type HeraldApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

const REQUEST_ID = /^[\w\-.:]{1,128}$/;

/**
 * Longer than the 60 s idle timeout of common load balancers, so that the balancer, not Herald, closes an idle
 * connection: otherwise it may send a request on a connection Herald is closing at that instant.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The deepest body of the API (a button of a WhatsApp message in a batch) is 5 levels. Code that walks a value
 * recursively, JSON.stringify included, overflows the stack at a few thousand: 8 KB of brackets.
 */
export const MAX_JSON_DEPTH = 32;

/** The query of an operation that takes none. */
const NO_QUERY = Query({});

/** A route module: registers its routes on the server. */
export type Routes = (app: HeraldApp, ctx: AppContext) => void;

/**
 * Builds the HTTP server shell: JSON only, the API's error format for every failure, request ids, the OpenAPI
 * document at /openapi.json and its reference page at /docs. Capabilities add their routes through `routes`.
 */
export async function buildServer(ctx: AppContext, routes: readonly Routes[]): Promise<FastifyInstance> {
  const { requestTimeoutMs, headersTimeoutMs } = ctx.config;
  const errorHandler = makeErrorHandler(NO_BODY_LIMIT, ctx.config.bodyLimitBytes);
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    // Each route has a limit of its own (the hook below); this is for any other.
    bodyLimit: NO_BODY_LIMIT,
    // A trailing slash names the same route (`POST /api/v1/message/` is `POST /api/v1/message`).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
    // A number of hops is a function to Fastify's types (the addresses nearest the server are the proxies).
    trustProxy: typeof ctx.config.trustProxy === 'number' ? trustHops(ctx.config.trustProxy) : ctx.config.trustProxy,
    // Slow clients (slowloris): the headers must arrive within headersTimeoutMs and the whole request within
    // requestTimeoutMs, else 408 and the connection is closed. Node checks these only every
    // connectionsCheckingInterval (30 s by default), so the check runs several times per headers timeout.
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // requireHostHeader: a hook below refuses a missing Host in the API's format; Node's refusal has no body.
    http: {
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)),
      requireHostHeader: false,
    },
    // What Node's parser or Fastify's router refuses before a route runs is answered in the API's format too.
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
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
  app.setValidatorCompiler((route) =>
    route.httpPart !== 'body'
      ? storableOnly(coercing(route))
      : needsBody(route.schema)
        ? strict(route)
        : orNoBody(strict(route)),
  );

  app.server.on('checkExpectation', expectationFailed);
  app.addHook('onRequest', async (request) => {
    // RFC 9112 section 3.2: a server must refuse an HTTP/1.1 request without Host.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
      throw herald('badRequest', { reason: 'Missing Host header' });
    // Fastify would read and parse the body of a request for no route before answering 404: 300 ms for 10 MB,
    // sent by anyone. Answered here, before the body.
    if (request.is404) throw routeNotFound(request);
  });

  // JSON is the only body the API takes; without this, text/plain would reach handlers as a string.
  app.removeContentTypeParser('text/plain');
  // Fastify's own JSON parser (with its __proto__ and constructor checks), after a structural pre-scan of the body
  // as it arrives (jsonShape.ts): a body nested too deep or holding more values than its route takes is refused
  // before JSON.parse pays for it, and before the rest of it is read.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) =>
    readJsonBody(request, payload, (error, text) => {
      if (error) return done(error, undefined);
      // An empty body is no body where the route needs none: many clients label every POST as JSON.
      if (text === '' && !needsBody(request.routeOptions.schema?.body)) return done(null, undefined);
      parseJson(request, text!, (parseError, value) => {
        if (parseError) return done(parseError, undefined);
        const problem = bodyProblem(value, text!);
        if (problem) return done(herald('badJson', { reason: problem }), undefined);
        done(null, value);
      });
    }),
  );
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
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addSchema(ErrorBody);

  await app.register(swagger, {
    // Shared schemas under their $id (ErrorBody), the type names generated clients take, rather than def-0.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Herald Direct Messaging API',
        version: '1.0.0',
        description:
          'Multi-channel messaging: SMS, FLASHCALL, VOICECODE, VIBER, WHATSAPP and VK. Every error body is ' +
          '`{"error": {"code", "msg"}}`; see docs/errors.md for the catalogue and docs/api.md for this document ' +
          '(operation names, authentication).',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // The API is served where this document is: relative, since Herald does not know the address its clients use
      // (a proxy, a public host name).
      servers: [{ url: '/', description: 'This Herald' }],
      components: {
        securitySchemes: {
          // An API key in the Authorization header, not http/basic: clients send the whole token after `Basic `,
          // and an http/basic scheme has /docs ask for a user name and password and encode them, which turns a
          // pasted token into another (401 4012). The page adds `Basic ` to a bare token (docsRequestInterceptor).
          basicToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description:
              'Authorization: Basic <TOKEN>, the whole token (TOKEN_1, TOKEN_2 or TOKEN_3) as issued. On this page, ' +
              'paste the token (with or without `Basic `). / Вставьте токен целиком (с `Basic ` или без): ' +
              'запросы уйдут с заголовком Authorization: Basic <токен>.',
          },
          bearerToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'Authorization: Bearer <TOKEN>, the whole token (TOKEN_1, TOKEN_2 or TOKEN_3) as issued',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <HERALD_ADMIN_TOKEN>' },
          adminSessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'herald_admin',
            description:
              "The operator console's session cookie, set by POST /admin/v1/session: HttpOnly, SameSite=Strict. It " +
              'stands for the admin token on every operator operation sent without Authorization; a request other ' +
              'than GET must then carry X-CSRF-Token (403 4037).',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'herald_session',
            description:
              "The personal account pages' session cookie, set by POST /app/v1/session: HttpOnly, SameSite=Strict. " +
              "It stands for the session's tokens on every client operation sent without Authorization; a request " +
              'other than GET must then carry X-CSRF-Token (403 4037). For pages, not for API clients.',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, requestInterceptor: docsRequestInterceptor },
    theme: {
      title: DOCS_TITLE.en,
      // The plugin's page has no viewport meta and no option for one: a script of the page's own (script-src 'self')
      // adds it, so that phones lay the page out at their width rather than at 980 px. It also titles the page in
      // the reader's language, chosen as the web pages choose it (docs/web.md, Languages).
      js: [{ filename: 'page.js', content: DOCS_PAGE_SCRIPT }],
    },
    // Set on every answer under /docs (the plugin's own routes only); what Swagger UI needs, nothing more.
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // A request of an account runs as the account's, and holds one of its places until its handler returns.
  app.addHook('onRoute', (route) => {
    route.handler = asAccountHandler(route.handler);
  });
  // Every route that may take a body reads at most its largest valid body: the limit it states, else one computed
  // from its body schema, else (no body) 1 KiB. A body schema without ceilings and no stated limit stops start-up.
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => method === 'GET' || method === 'HEAD')) return;
    const body = route.schema?.body as object | undefined;
    route.bodyLimit ??= body === undefined ? NO_BODY_LIMIT : bodyLimitFor(body, `${route.method} ${route.url}`);
    // And at most the values of its largest valid body: stated by the route, else counted from its schema, else
    // one per 32 bytes of its limit (a uuid in a list is 39); never fewer than DEFAULT_JSON_VALUES, which JSON.parse
    // takes in under a millisecond: a small body with a field too many gets its schema's 422 (`Invalid <field>`),
    // not a 413 from the count.
    const jsonValues = Math.max(
      DEFAULT_JSON_VALUES,
      route.config?.jsonValues ??
        (body === undefined ? NO_BODY_LIMIT : largestValues(body)) ??
        Math.ceil(route.bodyLimit / BYTES_PER_VALUE),
    );
    route.config = { ...route.config, jsonValues };
  });
  // DESIGN 12: every query-taking route refuses an unknown or misspelt parameter (422 4220 `Invalid <parameter>`).
  // A reading operation that needs credentials and declares no query takes none; a query schema that is not
  // closed stops start-up, so that no route ignores a parameter it does not know.
  app.addHook('onRoute', (route) => {
    const schema = route.schema as (typeof route.schema & { security?: unknown[] }) | undefined;
    if (!schema) return;
    const query = schema.querystring as { additionalProperties?: unknown } | undefined;
    if (query === undefined) {
      const reads = [route.method].flat().every((method) => method === 'GET' || method === 'HEAD');
      if (reads && (schema.security?.length ?? 0) > 0) schema.querystring = NO_QUERY;
    } else if (query.additionalProperties !== false) {
      throw new Error(`${route.method} ${route.url}: its query schema must be closed (http/schemas.ts Query)`);
    }
  });
  // Operation ids, both token schemes and the errors every route of a kind can give (operationDocs.ts).
  app.addHook('onRoute', documentOperation);
  for (const register of routes) register(app, ctx);
  await app.ready();
  return app;
}

/** A body validator that also takes no body (Fastify validates a missing body as null). */
function orNoBody(validate: Validator): Validator {
  const checked: Validator = (data: unknown) => {
    if (data === null || data === undefined) return true;
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  return checked;
}

/** Whether a route's body schema requires a body: it has one, not marked optional (TypeBox's `Type.Optional`). */
function needsBody(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { '~optional'?: boolean })['~optional'] !== true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The most values (commas and colons, and 8 an array or object: see jsonShape.ts) a JSON body of the route may
     * hold; by default counted from its body schema, else one per {@link BYTES_PER_VALUE} bytes of its body limit.
     */
    jsonValues?: number;
  }
}

/**
 * Reads a JSON body as it arrives, scanning each chunk (jsonShape.ts): more bytes than the route's limit (413 4130,
 * from Content-Length when it says so), more values than it takes (413 4131), or brackets nested deeper than
 * {@link MAX_JSON_DEPTH} (400 4000) stop it at once; otherwise `done` gets the text, which the scan has bounded.
 */
function readJsonBody(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (error: Error | null, text?: string) => void,
): void {
  const limit = request.routeOptions.bodyLimit ?? NO_BODY_LIMIT;
  const maxValues = request.routeOptions.config?.jsonValues ?? DEFAULT_JSON_VALUES;
  if (Number(request.headers['content-length']) > limit) return done(herald('bodyTooLarge', { limit }));
  const shape = new JsonShape(MAX_JSON_DEPTH, maxValues);
  const chunks: Buffer[] = [];
  let length = 0;
  const stop = (error: Error | null, text?: string): void => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(error, text);
  };
  const onData = (chunk: Buffer): void => {
    length += chunk.length;
    if (length > limit) return stop(herald('bodyTooLarge', { limit }));
    const problem = shape.feed(chunk);
    if (problem === 'depth') return stop(herald('badJson', { reason: `nested deeper than ${MAX_JSON_DEPTH} levels` }));
    if (problem === 'values') return stop(herald('bodyTooManyValues', { limit: maxValues }));
    chunks.push(chunk);
  };
  const onEnd = (): void => stop(null, Buffer.concat(chunks, length).toString('utf8'));
  const onError = (error: Error & { statusCode?: number }): void => {
    error.statusCode ??= 400;
    stop(error);
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/**
 * Why a parsed body is refused, if it is: nested deeper than {@link MAX_JSON_DEPTH}, or a NUL character or an
 * unpaired surrogate in a string (PostgreSQL stores neither in jsonb: the insert would fail with a 500). Walks the
 * value with a stack of its own, so that the check itself cannot overflow; it runs on every batch, so it allocates
 * nothing per node and looks for either only when the text holds its escape (JSON cannot carry them unescaped).
 */
export function bodyProblem(value: unknown, text: string): string | undefined {
  const mayHoldNul = text.includes('\\u0000');
  // An unpaired surrogate comes only escaped (UTF-8 cannot carry one); jsonb refuses it as NUL.
  const mayHoldSurrogate = /\\u[dD][89a-fA-F]/.test(text);
  const badString = (s: string): string | undefined =>
    mayHoldNul && s.includes('\u0000')
      ? NUL_PROBLEM
      : mayHoldSurrogate && UNPAIRED_SURROGATE.test(s)
        ? SURROGATE_PROBLEM
        : undefined;
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const node = values.pop();
    const depth = depths.pop()!;
    if (typeof node !== 'object' || node === null) {
      if (typeof node === 'string' && (mayHoldNul || mayHoldSurrogate)) {
        const problem = badString(node);
        if (problem) return problem;
      }
      continue;
    }
    if (depth >= MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(node)) {
      for (const child of node) {
        values.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in node) {
      const problem = mayHoldNul || mayHoldSurrogate ? badString(key) : undefined;
      if (problem) return problem;
      values.push((node as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

const NUL_PROBLEM = 'U+0000 (NUL) in a string';
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SURROGATE_PROBLEM = 'an unpaired surrogate (\\uD800-\\uDFFF) in a string';

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

/**
 * Refuses query and path values the database would refuse with a 500: Ajv coerces "1e309" and "Infinity" to
 * Infinity, which then passes integer, minimum and maximum (Ajv skips those for a number that is not finite), and
 * %00 decodes to a NUL character, which PostgreSQL text cannot hold.
 */
function storableOnly(validate: Validator): Validator {
  const checked: Validator = (data: Record<string, unknown> | null) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    for (const [name, value] of Object.entries(data ?? {})) {
      const values = [value].flat();
      const message = values.some((v) => typeof v === 'number' && !Number.isFinite(v))
        ? 'must be a finite number'
        : values.some((v) => typeof v === 'string' && v.includes('\u0000'))
          ? 'must not contain U+0000'
          : undefined;
      if (message) {
        checked.errors = [
          {
            keyword: 'type',
            instancePath: `/${name}`,
            schemaPath: '',
            params: {},
            message,
            data: String(value),
          } as FastifySchemaValidationError,
        ];
        return false;
      }
    }
    return true;
  };
  return checked;
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
