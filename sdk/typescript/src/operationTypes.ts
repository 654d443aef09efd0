/*
 * What a call of one operation takes and gives, read from an operation of the types openapi-typescript generates
 * (`operations['messageGet']` of openapi.ts, or `paths['/api/v1/message/{uuid}']['get']`): the SDK names operations
 * by operationId, the web pages (web/shared/apiClient.ts) by method and path; both use these.
 */

/** An operation as openapi-typescript writes it. */
export interface OperationShape {
  readonly parameters: unknown;
  readonly requestBody?: unknown;
  readonly responses: object;
}

/** Query strings and path segments are text on the wire: names are checked, values are whatever prints right. */
export type Text = string | number | boolean | null | undefined;

type PathPart<P> = P extends { path: infer X }
  ? { readonly params: { readonly [N in keyof X]: string | number } }
  : { readonly params?: never };
type QueryPart<P> = P extends { query?: infer Q }
  ? [NonNullable<Q>] extends [never]
    ? { readonly query?: never }
    : { readonly query?: { readonly [N in keyof NonNullable<Q>]?: Text } }
  : { readonly query?: never };
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type BodyPart<B> = [B] extends [never] ? { readonly body?: never } : { readonly body: B };

/** The JSON body an operation takes (never for one that takes none). */
export type OperationBody<O extends OperationShape> = JsonBody<NonNullable<O['requestBody']>>;

/** What a call takes: `params` fill the path template, `query` and `body` as the operation takes them. */
export type OperationCallOptions<O extends OperationShape> = {
  /** Aborts the call (and the SDK's retries of it). */
  readonly signal?: AbortSignal;
} & PathPart<O['parameters']> &
  QueryPart<O['parameters']> &
  BodyPart<OperationBody<O>>;

type Content<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'text/csv': infer T } }
    ? T
    : undefined;
/** The body of an operation's success answer: JSON parsed, a CSV export as text, undefined for 204. */
export type OperationAnswer<O extends OperationShape> = Content<
  O['responses'][Extract<keyof O['responses'], 200 | 201 | 202 | 204>]
>;

/** The options argument of a call, optional when the operation needs none. */
export type OptionsArgument<O> = Record<never, never> extends O ? [options?: O] : [options: O];
