export interface Reply<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

export interface CallOptions {
  /** Sent as `Authorization: Basic <token>` unless `auth` says otherwise. */
  readonly token?: string;
  readonly auth?: string;
  readonly body?: unknown;
  /** A body sent as is, for malformed-input tests. */
  readonly rawBody?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** `manual` answers a redirect itself (status 3xx, its `location` header) instead of following it. */
  readonly redirect?: 'follow' | 'manual';
}

/** One real HTTP request to a running Herald; the body is parsed as JSON when there is one. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== undefined) headers.authorization = options.auth;
  else if (options.token !== undefined) headers.authorization = `Basic ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body, redirect: options.redirect ?? 'follow' });
  const text = await response.text();
  let parsed: unknown = text;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}
