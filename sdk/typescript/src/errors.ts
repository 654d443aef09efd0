/**
 * A request Herald answered with an error: the HTTP status and Herald's error body (`{"error": {"code", "msg"}}`,
 * docs/errors.md lists every code; `code` is the HTTP status x 10 + n). Thrown by every method of the client once
 * its retries, if any, are spent.
 */
export class HeraldApiError extends Error {
  override readonly name = 'HeraldApiError';
  /** The HTTP status (422, 401, 429, ...). */
  readonly status: number;
  /**
   * Herald's error code (4220, 4012, 4290, ...); undefined when the answer was not Herald's error body (a proxy's
   * 502 page, say).
   */
  readonly code: number | undefined;
  /** Herald's message, as the catalogue writes it with its values filled in (`Invalid msisdn`). */
  readonly msg: string;
  /**
   * The whole `error` object: besides code and msg it may say where (`index`, the 0-based message of a batch;
   * `step`, the step of a cascade).
   */
  readonly details: Readonly<Record<string, unknown>>;
  /** The operation that was refused (`messageSend`). */
  readonly operationId: string;
  /** Seconds to wait before asking again, from the answer's `Retry-After` (429, 503); undefined without one. */
  readonly retryAfter: number | undefined;

  constructor(operationId: string, status: number, body: unknown, retryAfter: number | undefined) {
    const error = errorObject(body);
    const code = typeof error?.code === 'number' ? error.code : undefined;
    const msg = typeof error?.msg === 'string' ? error.msg : `HTTP ${status}`;
    super(`${operationId}: ${status}${code === undefined ? '' : ` ${code}`} ${msg}`);
    this.status = status;
    this.code = code;
    this.msg = msg;
    this.details = error ?? {};
    this.operationId = operationId;
    this.retryAfter = retryAfter;
  }
}

/**
 * A request that got no answer: the connection failed or was reset, or no answer came within the client's
 * `timeoutMs`. `cause` is what fetch threw. Whether Herald acted on the request is unknown, which is what an
 * idempotency key is for.
 */
export class HeraldNetworkError extends Error {
  override readonly name = 'HeraldNetworkError';
  readonly operationId: string;

  constructor(operationId: string, cause: unknown) {
    super(`${operationId}: no answer (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.operationId = operationId;
  }
}

function errorObject(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : undefined;
}
