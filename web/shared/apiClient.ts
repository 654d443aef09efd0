import { request } from './api.js';
import type { paths } from './openapi.js';

/*
 * Herald's API typed by web/shared/openapi.d.ts, which `npm run web:types` generates from the OpenAPI document: a
 * call names an operation by method and path template ('/api/v1/message/{uuid}'), and its path parameters, query
 * names, body and answer come from the document, so a page cannot read a field the API does not send.
 *
 * A thin layer over request() rather than openapi-fetch: openapi-fetch answers `{data, error}` where the pages throw
 * and catch ApiError (useAsync, useAction), and the 401 sign-out, the "Herald does not answer" message and
 * `credentials: 'omit'` would have to be rebuilt as its middleware. Here the types do the work; the only code is
 * filling the path template.
 */

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The path templates that have an operation with this method. */
export type ApiPath<M extends Method> = {
  [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P;
}[keyof paths];

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type Success<Rs> = Rs extends { 200: infer R }
  ? Json<R>
  : Rs extends { 201: infer R }
    ? Json<R>
    : Rs extends { 202: infer R }
      ? Json<R>
      : undefined;

/** The body of an operation's success answer (200, 201 or 202); undefined for 204. */
export type Answer<P extends ApiPath<M>, M extends Method> = Success<Operation<P, M>['responses']>;

/** One item of a list answer (`{"items": [...]}`). */
export type Item<List extends { readonly items: readonly unknown[] }> = List['items'][number];

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation takes. */
export type RequestBody<P extends ApiPath<M>, M extends Method> = JsonBody<NonNullable<Operation<P, M>['requestBody']>>;

type OperationParameters<P extends keyof paths, M extends Method> = Operation<P, M>['parameters'];
/** Query strings and path segments are text on the wire: names are checked, values are whatever prints right. */
type Text = string | number | boolean | null | undefined;

type PathPart<O> = O extends { path: infer X }
  ? { readonly params: { readonly [K in keyof X]: string | number } }
  : { readonly params?: never };
type QueryPart<O> = O extends { query?: infer Q }
  ? [NonNullable<Q>] extends [never]
    ? { readonly query?: never }
    : { readonly query?: { readonly [K in keyof NonNullable<Q>]?: Text } }
  : { readonly query?: never };
type BodyPart<B> = [B] extends [never] ? { readonly body?: never } : { readonly body: B };

/** What a call takes besides its path: `params` fill the template, `query` and `body` as the operation takes them. */
export type CallOptions<P extends ApiPath<M>, M extends Method> = { readonly signal?: AbortSignal } & PathPart<
  OperationParameters<P, M>
> &
  QueryPart<OperationParameters<P, M>> &
  BodyPart<RequestBody<P, M>>;

/** The options argument, optional when the operation needs none. */
type Rest<O> = Record<never, never> extends O ? [options?: O] : [options: O];

type Call<M extends Method> = <P extends ApiPath<M>>(
  path: P,
  ...options: Rest<CallOptions<P, M>>
) => Promise<Answer<P, M>>;

/** One call per method, each with the `Authorization` header of {@link apiClient}'s `auth`. */
export interface ApiClient {
  readonly get: Call<'get'>;
  readonly post: Call<'post'>;
  readonly put: Call<'put'>;
  readonly patch: Call<'patch'>;
  readonly delete: Call<'delete'>;
}

/** Fills `{name}` segments of a path template, each value URI-encoded. */
export function fillPath(template: string, params: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No value for {${name}} in ${template}`);
    return encodeURIComponent(String(value));
  });
}

/**
 * A client whose calls send `Authorization: <auth()>` (read at each call; none when undefined) through
 * {@link request}: errors are thrown as ApiError and a 401 signs the page out, as before.
 */
export function apiClient(auth: () => string | undefined): ApiClient {
  const call =
    <M extends Method>(method: M): Call<M> =>
    (path, ...[options]) => {
      const { params, query, body, signal } = ((options as unknown) ?? {}) as {
        params?: Record<string, string | number>;
        query?: Record<string, Text>;
        body?: unknown;
        signal?: AbortSignal;
      };
      return request(method.toUpperCase(), fillPath(path, params), { auth: auth(), query, body, signal });
    };
  return { get: call('get'), post: call('post'), put: call('put'), patch: call('patch'), delete: call('delete') };
}
