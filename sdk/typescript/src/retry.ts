/**
 * When the client asks again. Only requests that are safe to repeat are retried: a GET, and a request that carries
 * an `Idempotency-Key` (Herald answers a repeated key with the first answer and creates nothing again, DESIGN 3).
 * A POST without a key is never repeated: its first attempt may have been stored.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retry). */
  readonly attempts: number;
  /** The wait before the first retry; it doubles each time, with up to half of it added at random. */
  readonly baseDelayMs: number;
  /**
   * The longest wait between attempts. A `Retry-After` longer than this ends the retries: the error is thrown with
   * its `retryAfter` for the caller to decide.
   */
  readonly maxDelayMs: number;
}

/**
 * 3 attempts, 0.5 s then 1 s (and jitter): a restart or a failover of Herald's database answers 503 for about a
 * second (docs/scaling.md), while a client waiting much longer had better hear of it.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/** What an attempt ended with, as far as retrying goes. */
export type AttemptOutcome =
  | { readonly kind: 'network' }
  | { readonly kind: 'answer'; readonly status: number; readonly code?: number; readonly msg?: string };

/**
 * Whether an attempt that ended so is worth repeating, the request being safe to repeat: no answer at all, 5xx
 * (but 501), 429, 408, and a 409 4090 that says the first request with the same key is still in progress ("retry
 * later"; the other 409 4090, the same key with another body, is final).
 */
export function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'network') return true;
  const { status } = outcome;
  if (status === 429 || status === 408) return true;
  if (status >= 500) return status !== 501;
  return status === 409 && outcome.code === 4090 && /retry later/i.test(outcome.msg ?? '');
}

/**
 * Seconds from a `Retry-After` header (delta-seconds or an HTTP date), undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The wait before retry number `retry` (1 for the first), or undefined when the answer's Retry-After asks for
 * longer than the policy allows. Retry-After, when given, is a floor: Herald says when it will take the request.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1) * (1 + random() / 2));
  if (retryAfterSeconds === undefined) return backoff;
  const floor = retryAfterSeconds * 1000;
  return floor > policy.maxDelayMs ? undefined : Math.max(floor, backoff);
}
