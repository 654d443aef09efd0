import { Pool } from 'undici';
import { DEFAULT_URGENT_PERCENT, type HttpFlowConfig } from '../connectorConfig.js';
import type { Channel } from '../../shared/channels.js';
import type { Connector, ConnectorState, OutboundMessage, SubmitOutcome } from '../connector.js';
import { CircuitBreaker } from '../../shared/circuitBreaker.js';
import { Throttle } from '../throttle.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { formBody, jsonText, parseExact } from './jsonText.js';

/** How long a submission may wait for a window slot before its message goes back to the queue. */
const MAX_QUEUE_WAIT_MS = 10_000;
const DEFAULT_RETRY_MS = 5000;
/** The longest pause of a failing provider's circuit breaker. */
const MAX_OPEN_MS = 600_000;

/** One HTTP request a provider adapter makes for a message. */
export interface ProviderRequest {
  /** POST unless said. */
  readonly method?: 'POST' | 'PUT' | 'GET';
  /** How the body is written: JSON unless said; a form is application/x-www-form-urlencoded. */
  readonly encoding?: 'json' | 'form';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** A provider's answer: its HTTP status, its body parsed as JSON (undefined when it is not), and its headers. */
export interface ProviderAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/**
 * The shell of every HTTP provider connector: connection pool, window and rate, timeout, and the classification
 * of answers: 2xx accepted (the adapter reads the provider's id), 408/425/429/5xx and network failures
 * transient (honouring Retry-After), other 4xx permanent with the provider's error code. Adapters supply the
 * request and read the answer. A circuit breaker takes a provider that keeps failing (breakerFailures in a row with
 * no answer, a timeout or a 5xx) out of its routes for breakerOpenSeconds, doubling while it stays down (at most
 * ten minutes), so that routes fall back to their next connector; the first success closes it.
 */
export abstract class HttpConnector implements Connector {
  abstract readonly type: string;
  abstract readonly channel: Channel;
  private readonly pool: Pool;
  private readonly throttle: Throttle;
  private submitted = 0;
  private lastError: string | null = null;
  private lastErrorAt: Date | null = null;
  private stopped = false;
  private readonly breaker: CircuitBreaker;

  constructor(
    readonly id: string,
    baseUrl: string,
    private readonly flow: HttpFlowConfig,
    /** Herald's clock, so that tests can move it: the breaker's and the throttle's time. */
    protected readonly clock: Clock = systemClock,
  ) {
    this.breaker = new CircuitBreaker({
      failures: flow.breakerFailures,
      openMs: flow.breakerOpenSeconds * 1000,
      maxOpenMs: MAX_OPEN_MS,
    });
    const url = new URL(baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    // One connection per slot of the window (HTTP/1.1 has one request in flight per connection): capped at 64, the
    // cascade benchmark's VK steps waited for a connection and went at 256/s; uncapped, 785/s (same load, 5-7).
    this.pool = new Pool(url.origin, { connections: flow.window, keepAliveTimeout: 30_000 });
    this.throttle = new Throttle(flow.window, flow.mps, systemClock, flow.urgentPercent ?? DEFAULT_URGENT_PERCENT);
  }

  protected readonly basePath: string;

  /** The request for a message. */
  protected abstract request(message: OutboundMessage): ProviderRequest;

  /**
   * What an adapter looks up in Herald's records before the message waits for room in the window: the request, or
   * the outcome when none is needed; undefined leaves it to {@link prepare}, in the window.
   */
  protected async resolve(_message: OutboundMessage): Promise<ProviderRequest | SubmitOutcome | undefined> {
    return undefined;
  }

  /**
   * The request for a message, or its outcome when no request is needed (or an earlier call decided it), made with
   * a slot of the window: adapters that make a call of their own first override this.
   */
  protected async prepare(message: OutboundMessage): Promise<ProviderRequest | SubmitOutcome> {
    return this.request(message);
  }

  /** An adapter's own reading of an answer; undefined leaves it to the common classification. */
  protected classify(_message: OutboundMessage, _answer: ProviderAnswer): SubmitOutcome | undefined {
    return undefined;
  }
  /** The provider's message id in a 2xx answer. */
  protected abstract carrierId(body: unknown): string | undefined;
  /** The provider's error code in an error answer, else the HTTP status is used. */
  protected abstract errorCode(body: unknown): number | undefined;

  async start(): Promise<void> {
    this.stopped = false;
    this.throttle.reopen();
  }

  release(): void {
    this.throttle.rejectAll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.throttle.rejectAll();
    await this.pool.close();
  }

  available(): boolean {
    return !this.stopped && !this.breaker.isOpen(this.clock.nowMs());
  }

  state(): ConnectorState {
    return {
      id: this.id,
      type: this.type,
      channel: this.channel,
      available: this.available(),
      state: this.stopped ? 'stopped' : this.breaker.isOpen(this.clock.nowMs()) ? 'failing' : 'ready',
      inFlight: this.throttle.active,
      window: this.flow.window,
      mps: this.flow.mps,
      submitted: this.submitted,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
      queued: this.throttle.waiting,
    };
  }

  async submit(message: OutboundMessage): Promise<SubmitOutcome> {
    // Looked up before waiting for the window: the messages a turn hands over look up together, not one per slot.
    const resolved = await this.resolve(message);
    if (resolved && 'kind' in resolved) return resolved.kind === 'accepted' ? resolved : this.fail(resolved);
    if (!(await this.throttle.acquire(MAX_QUEUE_WAIT_MS, message.urgent))) {
      return { kind: 'transient', retryAfterMs: 1000, reason: `${this.id}: window busy` };
    }
    try {
      const prepared = resolved ?? (await this.prepare(message));
      if ('kind' in prepared) return prepared.kind === 'accepted' ? prepared : this.fail(prepared);
      const answer = await this.call(prepared);
      const { status, body: parsed, text } = answer;
      const own = this.classify(message, answer);
      if (own) {
        if (status >= 500) this.failedToAnswer();
        else this.answered();
        if (own.kind !== 'accepted') return this.fail(own);
        this.submitted++;
        return own;
      }
      if (status >= 200 && status < 300) {
        const id = this.carrierId(parsed);
        if (!id)
          return this.fail({
            kind: 'transient',
            retryAfterMs: DEFAULT_RETRY_MS,
            reason: `${this.id}: ${status} without a message id`,
          });
        this.submitted++;
        this.answered();
        return { kind: 'accepted', carrierIds: [id] };
      }
      const reason = `${this.id}: HTTP ${status} ${text.slice(0, 200)}`;
      if (status >= 500) this.failedToAnswer();
      else this.answered();
      if (transientStatus(status)) {
        return this.fail({
          kind: 'transient',
          retryAfterMs: retryAfter(answer.headers['retry-after']),
          reason,
          errorCode: status,
        });
      }
      return this.fail({ kind: 'permanent', errorCode: this.errorCode(parsed) ?? status, reason });
    } catch (error) {
      this.failedToAnswer();
      return this.fail({
        kind: 'transient',
        retryAfterMs: DEFAULT_RETRY_MS,
        reason: `${this.id}: ${(error as Error).message}`,
      });
    } finally {
      this.throttle.release(message.urgent);
    }
  }

  /**
   * Several messages in one request (a provider's batch), with one slot of the window: `read` makes the answer
   * one outcome per message, in their order; no answer is a transient outcome for each.
   */
  protected async submitMany(
    messages: readonly OutboundMessage[],
    request: ProviderRequest,
    read: (answer: ProviderAnswer) => readonly SubmitOutcome[],
  ): Promise<readonly SubmitOutcome[]> {
    const urgent = messages.some((m) => m.urgent);
    const each = (outcome: SubmitOutcome): SubmitOutcome[] => messages.map(() => outcome);
    if (!(await this.throttle.acquire(MAX_QUEUE_WAIT_MS, urgent)))
      return each({ kind: 'transient', retryAfterMs: 1000, reason: `${this.id}: window busy` });
    try {
      const answer = await this.call(request);
      if (answer.status >= 500) this.failedToAnswer();
      else this.answered();
      const outcomes = read(answer);
      for (const outcome of outcomes) {
        if (outcome.kind === 'accepted') this.submitted++;
        else this.fail(outcome);
      }
      return outcomes;
    } catch (error) {
      this.failedToAnswer();
      return each(
        this.fail({
          kind: 'transient',
          retryAfterMs: DEFAULT_RETRY_MS,
          reason: `${this.id}: ${(error as Error).message}`,
        }),
      );
    } finally {
      this.throttle.release(urgent);
    }
  }

  /** One request to the provider (JSON, POST unless said), through the connector's pool and within its timeout. */
  protected async call(request: ProviderRequest): Promise<ProviderAnswer> {
    const withBody = request.body !== undefined && request.method !== 'GET';
    const form = request.encoding === 'form';
    const response = await this.pool.request({
      method: request.method ?? 'POST',
      path: this.basePath + request.path,
      headers: withBody
        ? { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', ...request.headers }
        : request.headers,
      ...(withBody ? { body: form ? formBody(request.body) : jsonText(request.body) } : {}),
      headersTimeout: this.flow.timeoutSeconds * 1000,
      bodyTimeout: this.flow.timeoutSeconds * 1000,
    });
    const text = await response.body.text();
    let body: unknown;
    try {
      body = text ? parseExact(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body, text, headers: response.headers };
  }

  /** The provider answered (any 2xx or 4xx): it is up, whatever it thought of the message. */
  private answered(): void {
    this.breaker.success();
  }

  /** No answer, a timeout or a 5xx: after breakerFailures in a row, out of the routes for a while. */
  private failedToAnswer(): void {
    this.breaker.failure(this.clock.nowMs());
  }

  private fail(outcome: Exclude<SubmitOutcome, { kind: 'accepted' }>): SubmitOutcome {
    this.lastError = outcome.reason;
    this.lastErrorAt = this.clock.now();
    return outcome;
  }
}

/** An HTTP status that means "later" whatever the provider's code: 408, 425, 429 and 5xx. */
export function transientStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

export function retryAfter(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  const seconds = value === undefined ? NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 3600) * 1000 : DEFAULT_RETRY_MS;
}
