import type { RouteOptions } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { operationIdOf } from './operationIds.js';

/** A client token (TOKEN_1, TOKEN_2, TOKEN_3) in either scheme: parseAuthorization (accounts/tokens.ts) takes both. */
export const TOKEN_SECURITY: Record<string, string[]>[] = [{ basicToken: [] }, { bearerToken: [] }];

interface OperationSchema {
  hide?: boolean;
  operationId?: string;
  security?: Record<string, unknown[]>[];
  querystring?: unknown;
  params?: unknown;
  headers?: unknown;
  body?: unknown;
  produces?: string[];
  response?: Record<string, unknown>;
}

const ERROR = (): TSchema => Type.Ref('ErrorBody');

/**
 * Completes what the OpenAPI document says of a route from what the server shell does to every route of its kind,
 * so that route modules state only what is their own:
 * - its `operationId` from {@link operationIdOf} (a route's own wins);
 * - a client token's security as both schemes, Basic and Bearer with the whole token: every token route takes both,
 *   and the reference page's "Authorize" then takes a pasted token (the Bearer dialog) for every operation;
 * - the error answers the shell gives, in the shared error body: 400 (a request the parser refuses, an HTTP/1.1
 *   request without Host), 401, 403 and 429 of a client token (auth.ts, principal.ts), 401, 429 and 503 of the
 *   operator token, 422 of a request whose parameters, query or body has a schema, 413 and 415 of a body, and 500.
 * A status a route declares itself is kept as it is.
 */
export function documentOperation(route: RouteOptions): void {
  const schema = route.schema as OperationSchema | undefined;
  if (!schema || schema.hide) return;
  const methods = [route.method].flat();
  if (methods.length !== 1 || methods[0] === 'HEAD') return;
  const method = methods[0]!;
  schema.operationId ??= operationIdOf(method, openapiPath(route.url));

  const schemes = new Set((schema.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const token = schemes.has('basicToken') || schemes.has('bearerToken');
  // A copy per route: the plugin builds each operation from its route's own objects.
  if (token) schema.security = TOKEN_SECURITY.map((requirement) => ({ ...requirement }));
  // The pages' session cookie (http/sessionCookie.ts), where a route names it: every token route takes it, only
  // the session's own routes say so, as it is not for API clients.
  if (token && schemes.has('sessionCookie')) schema.security!.push({ sessionCookie: [] });
  const admin = schemes.has('adminToken');

  const statuses = [400, 500];
  if (token) statuses.push(401, 403, 429);
  if (admin) statuses.push(401, 429, 503);
  const input = schema.querystring ?? schema.params ?? schema.headers ?? schema.body;
  if (input !== undefined) statuses.push(422);
  if (schema.body !== undefined) statuses.push(413, 415);
  const response = (schema.response ??= {});
  for (const status of statuses) response[status] ??= ERROR();
  // A route that answers another type (`produces: ['text/csv']`) still answers its errors in JSON; by default the
  // document would list them under its type.
  if (schema.produces === undefined) return;
  for (const [status, answer] of Object.entries(response)) {
    if (/^[45]/.test(status) && (answer as { $ref?: string }).$ref === 'ErrorBody')
      response[status] = { description: 'Error', content: { 'application/json': { schema: ERROR() } } };
  }
}

/** `/api/v1/message/:uuid` as OpenAPI writes it: `/api/v1/message/{uuid}`. */
export const openapiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');
