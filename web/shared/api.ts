import { explainApiError, explainedLine } from './errorWords.js';
import { t } from './i18n/index.js';

/**
 * An error answer of Herald's API: `{"error": {"code", "msg"}}` with its HTTP status; `detail` holds the error's
 * other fields, e.g. a refused batch's `index` and a cascade's `step`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
    readonly detail: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  /** The whole Authorization header value, e.g. `Basic <token>` or `Bearer <token>`. */
  readonly auth?: string;
  /**
   * The session cookie's CSRF token: the call is signed in by the browser's session cookie, and a call other than
   * GET carries the token in `X-CSRF-Token` (docs/web.md, "Sessions").
   */
  readonly csrf?: string;
  readonly body?: unknown;
  readonly query?: Query;
  readonly signal?: AbortSignal;
}

let unauthorized: (() => void) | undefined;

/** What to do when the API answers 401: the page signs out and shows the sign-in form. */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler;
}

/** Builds `path?query`, leaving out empty values. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** One call to Herald's API on the same origin; resolves with the parsed JSON body (undefined for 204). */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.auth) headers.authorization = options.auth;
  if (options.csrf !== undefined && method !== 'GET') headers['x-csrf-token'] = options.csrf;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body,
      signal: options.signal ?? null,
      // The session cookie (HttpOnly, SameSite=Strict) goes with the page's own calls, never to another origin.
      credentials: 'same-origin',
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, undefined, t('ui.noConnection'));
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) {
    const { code, msg, ...detail } =
      (parsed as { error?: { code?: number; msg?: string } & Record<string, unknown> } | undefined)?.error ?? {};
    const apiError = new ApiError(response.status, code, msg ?? `HTTP ${response.status}`, detail);
    if (response.status === 401 && (options.auth || options.csrf !== undefined) && unauthorized) unauthorized();
    throw apiError;
  }
  return parsed as T;
}

/** A page of a paginated list. */
export interface Page<T> {
  readonly items: T[];
  readonly page: number;
  readonly per_page: number;
  readonly total: number;
}

/**
 * The text to show for any failure, in the reader's language: an API error in words with its code and what to do
 * ("Insufficient funds (4020). Top up the balance, then send again.").
 */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const line = explainedLine(explainApiError(error.code, error.message));
    // What the error is about, named by the page (namingStep's "Step 2").
    return typeof error.detail.about === 'string' ? `${error.detail.about}: ${line}` : line;
  }
  return error instanceof Error ? error.message : String(error);
}

/** An API error's words alone (no code, no advice): what a form shows under the field at fault. */
export function errorWords(error: unknown): string {
  if (error instanceof ApiError) return explainApiError(error.code, error.message).text;
  return error instanceof Error ? error.message : String(error);
}
