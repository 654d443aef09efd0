import { fillPath } from '../../sdk/typescript/src/paths.js';
import { request } from './api.js';
import type { paths } from '../../sdk/typescript/src/openapi.js';
import type {
  OperationAnswer,
  OperationBody,
  OperationCallOptions,
  OptionsArgument,
  Text,
} from '../../sdk/typescript/src/operationTypes.js';

/*
 * Herald's API typed by sdk/typescript/src/openapi.ts, which `npm run api:types` generates from the OpenAPI
 * document: a call names an operation by method and path template ('/api/v1/message/{uuid}'), and its path
 * parameters, query names, body and answer come from the document (through the SDK's operationTypes.ts), so a page
 * cannot read a field the API does not send.
 *
 * A thin layer over request() rather than openapi-fetch: openapi-fetch answers `{data, error}` where the pages throw
 * and catch ApiError (useAsync, useAction), and the 401 sign-out, the "Herald does not answer" message and
 * session cookie's CSRF header would have to be rebuilt as its middleware. Here the types do the work; the only code is
 * filling the path template.
 */

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The path templates that have an operation with this method. */
export type ApiPath<M extends Method> = {
  [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P;
}[keyof paths];

/** The body of an operation's success answer (200, 201 or 202; a CSV export as text); undefined for 204. */
export type Answer<P extends ApiPath<M>, M extends Method> = OperationAnswer<Operation<P, M>>;

/** One item of a list answer (`{"items": [...]}`). */
export type Item<List extends { readonly items: readonly unknown[] }> = List['items'][number];

/** The JSON body an operation takes. */
export type RequestBody<P extends ApiPath<M>, M extends Method> = OperationBody<Operation<P, M>>;

/** What a call takes besides its path: `params` fill the template, `query` and `body` as the operation takes them. */
export type CallOptions<P extends ApiPath<M>, M extends Method> = OperationCallOptions<Operation<P, M>>;

type Call<M extends Method> = <P extends ApiPath<M>>(
  path: P,
  ...options: OptionsArgument<CallOptions<P, M>>
) => Promise<Answer<P, M>>;

/** One call per method, each signed in as {@link apiClient}'s `credentials` say. */
export interface ApiClient {
  readonly get: Call<'get'>;
  readonly post: Call<'post'>;
  readonly put: Call<'put'>;
  readonly patch: Call<'patch'>;
  readonly delete: Call<'delete'>;
}

/** How a client's calls are signed in, read at each call: the session cookie's CSRF token, or an Authorization. */
export interface Credentials {
  readonly auth?: string;
  readonly csrf?: string;
}

/**
 * A client whose calls are signed in with `credentials()` (none when empty) through {@link request}: errors are
 * thrown as ApiError and a 401 of a signed-in call signs the page out.
 */
export function apiClient(credentials: () => Credentials): ApiClient {
  const call =
    <M extends Method>(method: M): Call<M> =>
    (path, ...[options]) => {
      const { params, query, body, signal } = ((options as unknown) ?? {}) as {
        params?: Record<string, string | number>;
        query?: Record<string, Text>;
        body?: unknown;
        signal?: AbortSignal;
      };
      return request(method.toUpperCase(), fillPath(path, params), { ...credentials(), query, body, signal });
    };
  return { get: call('get'), post: call('post'), put: call('put'), patch: call('patch'), delete: call('delete') };
}
