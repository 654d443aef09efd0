import { HeraldApiError, HeraldNetworkError } from './errors.js';
import type { operations } from './openapi.js';
import type { OperationAnswer, OperationBody, OperationCallOptions, OptionsArgument, Text } from './operationTypes.js';
import { OPERATIONS } from './operations.js';
import { fillPath, queryString } from './paths.js';
import {
  type AttemptOutcome,
  DEFAULT_RETRY_POLICY,
  isRetryable,
  parseRetryAfter,
  type RetryPolicy,
  retryDelayMs,
} from './retry.js';

/** The name of an operation of the client API, as the OpenAPI document's operationId (`messageSend`). */
export type OperationId = keyof typeof OPERATIONS & keyof operations;

/** The JSON body an operation takes (never for one that takes none). */
export type RequestBody<K extends OperationId> = OperationBody<operations[K]>;
type KeyPart<K extends OperationId> = (typeof OPERATIONS)[K]['idempotencyKey'] extends true
  ? {
      /**
       * The `Idempotency-Key`: the same key and body within 24 h get the first answer and create nothing again.
       * Without one the client makes one (unless `autoIdempotencyKey: false`), so that its retries never send twice.
       */
      readonly idempotencyKey?: string;
    }
  : { readonly idempotencyKey?: never };

/**
 * What a method takes: `params` fill the path template, `query` and `body` as the operation takes them, and
 * `idempotencyKey` where it takes one.
 */
export type CallOptions<K extends OperationId> = OperationCallOptions<operations[K]> & KeyPart<K>;

/** The body of an operation's success answer (JSON parsed; text for CSV; undefined for 204). */
export type Answer<K extends OperationId> = OperationAnswer<operations[K]>;

/** One method per operation of the client API, named by its operationId. */
export type HeraldClient = {
  readonly [K in OperationId]: (...options: OptionsArgument<CallOptions<K>>) => Promise<Answer<K>>;
};

export interface HeraldClientOptions {
  /** Where Herald is, without the API's path: `https://herald.example.com`. */
  readonly baseUrl: string;
  /** An API token as issued (`base64("<keyId>:<secret>")`), sent whole. */
  readonly token: string;
  /**
   * `basic` (default): `Authorization: Basic <token>`, as the spec sends; `bearer`: `Authorization: Bearer <token>`.
   * Every operation of the client API takes both (docs/api.md).
   */
  readonly scheme?: 'basic' | 'bearer';
  /**
   * How long one attempt may wait for its answer, in ms: 70,000 by default, the spec's recommended timeout for
   * sending (section 4, detail 2).
   */
  readonly timeoutMs?: number;
  /** When to retry a request that is safe to repeat ({@link DEFAULT_RETRY_POLICY}). */
  readonly retry?: Partial<RetryPolicy>;
  /**
   * Give every call of an operation that takes an `Idempotency-Key` a random one when the caller gives none
   * (default true), so that it can be retried. false: such a call without a key is sent once.
   */
  readonly autoIdempotencyKey?: boolean;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
}

/** The spec's recommended client timeout for sending: at least 70 seconds (section 4, detail 2). */
export const DEFAULT_TIMEOUT_MS = 70_000;

interface Call {
  readonly params?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, Text>>;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

/**
 * A client of Herald's API: `client.messageSend({ body: [...] })`, `client.messageGet({ params: { uuid } })`. A
 * refused request throws {@link HeraldApiError}; one that got no answer, {@link HeraldNetworkError}. GETs and
 * requests with an idempotency key are retried on no answer, 5xx, 429 and 408, honouring `Retry-After`.
 */
export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const authorization = `${options.scheme === 'bearer' ? 'Bearer' : 'Basic'} ${options.token}`;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const autoKey = options.autoIdempotencyKey ?? true;
  const fetchImpl = options.fetch ?? globalThis.fetch;

  async function call(operationId: OperationId, given: Call = {}): Promise<unknown> {
    const operation = OPERATIONS[operationId];
    const key =
      operation.idempotencyKey && given.idempotencyKey === undefined && autoKey
        ? globalThis.crypto.randomUUID()
        : given.idempotencyKey;
    const headers: Record<string, string> = { authorization, accept: 'application/json, text/csv' };
    if (given.body !== undefined) headers['content-type'] = 'application/json';
    if (key !== undefined) headers['idempotency-key'] = key;
    const url = baseUrl + fillPath(operation.path, given.params) + queryString(given.query);
    const body = given.body === undefined ? undefined : JSON.stringify(given.body);
    const repeatable = operation.method === 'GET' || key !== undefined;
    const attempts = repeatable ? Math.max(1, policy.attempts) : 1;

    for (let attempt = 1; ; attempt++) {
      given.signal?.throwIfAborted();
      const signals = [AbortSignal.timeout(timeoutMs), ...(given.signal ? [given.signal] : [])];
      let response: Response;
      let answer: unknown;
      try {
        response = await fetchImpl(url, { method: operation.method, headers, body, signal: AbortSignal.any(signals) });
        answer = await readBody(response);
      } catch (error) {
        // The caller's own abort ends the call as it is; anything else (no answer, or one cut short) is a request
        // without an answer.
        if (given.signal?.aborted) throw error;
        const failure = new HeraldNetworkError(operationId, error);
        const wait = attempt < attempts ? retryDelayMs(policy, attempt, undefined) : undefined;
        if (wait === undefined) throw failure;
        await sleep(wait, given.signal);
        continue;
      }
      if (response.ok) return answer;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const failure = new HeraldApiError(operationId, response.status, answer, retryAfter);
      const outcome: AttemptOutcome = { kind: 'answer', status: response.status, code: failure.code, msg: failure.msg };
      const wait = attempt < attempts && isRetryable(outcome) ? retryDelayMs(policy, attempt, retryAfter) : undefined;
      if (wait === undefined) throw failure;
      await sleep(wait, given.signal);
    }
  }

  const client: Record<string, (options?: Call) => Promise<unknown>> = {};
  for (const operationId of Object.keys(OPERATIONS) as OperationId[])
    client[operationId] = (given) => call(operationId, given);
  return client as unknown as HeraldClient;
}

/** JSON when the answer says so, text otherwise (CSV exports), undefined when empty (204). */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  if (!/[/+]json\b/i.test(response.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
