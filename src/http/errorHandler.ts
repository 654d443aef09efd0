import { type IncomingMessage, maxHeaderSize, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isTransactionConflict } from '../db/connectionErrors.js';
import { ERRORS, HeraldError, herald, showValue } from '../errors/catalogue.js';
import { maskCallbackUrl } from '../shared/callbackUrlMask.js';

/** Fastify's default longest path parameter; no id or code of the API comes near it. */
export const MAX_PARAM_LENGTH = 100;

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  message?: string;
}

/**
 * Maps an Ajv schema error to the API's `Missing <field>` / `Invalid <field>: <value>` messages. A field is named as
 * the client wrote it, whatever part of the request holds it: `Invalid per_page: 0`, not `querystring.per_page`.
 */
function schemaError(error: FastifyError & { validation: AjvError[]; validationContext?: string }): HeraldError {
  const first = error.validation[0]!;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const within = path ? `${path}.` : '';
  if (first.keyword === 'required') {
    return herald('missingField', { field: `${within}${String(first.params.missingProperty)}` });
  }
  if (first.keyword === 'additionalProperties') {
    return herald('fieldNotAccepted', { field: `${within}${String(first.params.additionalProperty)}` });
  }
  const field = path || error.validationContext || 'body';
  if (first.keyword === 'maxItems') return herald('tooManyItems', { field, limit: Number(first.params.limit) });
  if (maySecret(field, first.data))
    return herald('invalidSecretField', { field, reason: first.message ?? first.keyword });
  // A refused URL (an over-long callbackUrl) is echoed masked like an accepted one: it may carry credentials.
  const shown = typeof first.data === 'string' && /url$/i.test(path) ? maskCallbackUrl(first.data) : first.data;
  return herald('invalidField', { field, value: `${showValue(shown)} (${first.message ?? first.keyword})` });
}

/** Names of fields whose values are credentials: `password`, `token`, `callbackSecret`, `accessToken`, ... */
const SECRET_NAME = /password|token|secret/i;

/**
 * Whether a refused value may be, or hold, a credential: the field is named like one, or the value is an object or
 * array with such a key (a whole body refused for its shape). Such a value is never echoed.
 */
function maySecret(field: string, value: unknown): boolean {
  if (SECRET_NAME.test(field.split('.').at(-1) ?? '')) return true;
  return (
    typeof value === 'object' && value !== null && /"[^"]*(?:password|token|secret)[^"]*":/i.test(JSON.stringify(value))
  );
}

/** Turns any error into the API's error body; unknown errors are logged with their cause and answered 5000. */
export function toHeraldError(error: FastifyError): HeraldError {
  if (error instanceof HeraldError) return error;
  if ('validation' in error && Array.isArray(error.validation)) {
    return schemaError(error as FastifyError & { validation: AjvError[] });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return herald('unsupportedMediaType');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return herald('bodyTooLarge', { limit: 'the configured limit of' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return herald('badJson', { reason: 'the body is empty' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return herald('badJson', { reason: 'not valid JSON' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return herald('badRequest', { reason: 'Content-Length does not match the body' });
    case 'FST_ERR_BAD_URL':
      return herald('badRequest', { reason: 'Malformed URL: invalid percent-encoding' });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return herald('urlTooLong', { limit: MAX_PARAM_LENGTH });
    default:
      break;
  }
  if (isDatabaseUnavailable(error) || isTransactionConflict(error)) return herald('databaseUnavailable');
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // A client error Fastify or a plugin raised that the catalogue does not name: keep its status and text.
    return new HeraldError('badRequest', { reason: error.message }).withStatus(status);
  }
  return herald('internal');
}

/**
 * The error handler: every failure in the API's format. `bodyLimit` is named in a 413 of a route without a limit
 * of its own; a refused body of up to `drainLimit` bytes is read to its end so that its client reads the answer.
 */
export function makeErrorHandler(bodyLimit: number, drainLimit: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    let mapped = toHeraldError(error);
    // The route's own limit where it has one (sign-in, webhooks, inbound routing settings), else the server's.
    if (mapped.errorName === 'bodyTooLarge')
      mapped = herald('bodyTooLarge', { limit: request.routeOptions?.bodyLimit ?? bodyLimit });
    if (mapped.status >= 500 && mapped.errorName === 'internal') {
      request.log.error({ err: error }, 'request failed');
    }
    // 429 4290 and the 503s of a busy gate say when to come back.
    if (mapped.params.retryAfter !== undefined) reply.header('retry-after', String(mapped.params.retryAfter));
    if (mapped.errorName === 'databaseUnavailable') {
      const conflict = isTransactionConflict(error);
      request.log.warn({ err: error }, conflict ? 'transaction rolled back by a conflict' : 'database unavailable');
      reply.header('retry-after', '1');
    }
    // Refused before its body was all read (no route, no credentials, too large, too deep), answered at once. The
    // rest of a body no larger than the largest Herald takes is read and dropped, unparsed (under 1 ms of CPU a
    // megabyte), and the connection kept: closing it under a client still sending reset it, which met EPIPE instead
    // of its 413. Past that size, or of no stated length, the connection is closed, so that Herald reads no more.
    if (!request.raw.complete) {
      if (Number(request.headers['content-length']) <= drainLimit) {
        reply.removeHeader('connection');
        request.raw.resume();
      } else reply.header('connection', 'close');
    }
    void reply.status(mapped.status).send(mapped.toBody());
  };
}

/** 404 4040 for a request no route takes, whatever the method. */
export function routeNotFound(request: FastifyRequest): HeraldError {
  return herald('routeNotFound', { method: request.method, url: request.url.split('?')[0] ?? '' });
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  void reply.status(ERRORS.routeNotFound.status).send(routeNotFound(request).toBody());
}

/** Answers an `Expect` other than 100-continue, which Node would refuse with an empty 417 itself. */
export function expectationFailed(_request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify(herald('expectationFailed').toBody());
  response
    .writeHead(ERRORS.expectationFailed.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    })
    .end(body);
}

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (a malformed request line or header, a
 * header block over Node's limit, a request that did not arrive within the timeouts), in the API's error format.
 * Fastify's default answers in its own format and logs the raw bytes at trace level, Authorization header included;
 * this logs only the error code.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const mapped =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? herald('requestTimeout')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? herald('headersTooLarge', { limit: maxHeaderSize })
        : herald('badRequest', { reason: 'Malformed HTTP request' });
  this.log.debug({ code: error.code, status: mapped.status }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(mapped.toBody());
    socket.write(
      `HTTP/1.1 ${mapped.status} ${STATUS_CODES[mapped.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
