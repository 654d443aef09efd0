import type { Clock } from '../../../util/clock.js';
import type { OutboundMessage, SubmitOutcome } from '../../connector.js';
import { isPlainObject } from '../../../shared/text.js';
import { HttpConnector, type ProviderAnswer, type ProviderRequest, retryAfter } from '../httpConnector.js';
import type { HttpFlowConfig } from '../../connectorConfig.js';
import type { CompiledHttpConnector } from './httpConnectorConfig.js';
import { jsonPathFirst } from './jsonPath.js';
import { type PlaceholderValues, renderJson, renderString } from './templates.js';

/**
 * A provider described in the configuration (`type: "http"`, DESIGN 19): the request filled from its templates,
 * the answer read by its paths. A success is an HTTP status of `successStatus` (2xx by default) whose answer holds
 * `success` when one is set, and an id at `id`. Otherwise the error code at `errorCode` (or the HTTP status)
 * decides: listed `permanent`, the message is unsent; listed `transient`, or a 408, 425, 429 or 5xx, it is tried
 * again after `retryAfter` (the answer's, else Retry-After); any other refusal is permanent.
 */
export class DeclarativeConnector extends HttpConnector {
  readonly type = 'http';
  readonly channel: CompiledHttpConnector['settings']['channel'];
  private readonly permanent: ReadonlySet<string>;
  private readonly transient: ReadonlySet<string>;
  private statusUrl: string | undefined;

  constructor(
    private readonly compiled: CompiledHttpConnector,
    flow: HttpFlowConfig,
    clock?: Clock,
    /** Herald's address as the provider reaches it: `{statusUrl}` is `{publicUrl}/webhooks/http/{id}`. */
    publicUrl?: string,
  ) {
    super(compiled.settings.id, compiled.settings.baseUrl, flow, clock);
    this.channel = compiled.settings.channel;
    this.permanent = new Set((compiled.settings.response.permanent ?? []).map(String));
    this.transient = new Set((compiled.settings.response.transient ?? []).map(String));
    if (publicUrl) this.defaultPublicUrl(publicUrl);
  }

  defaultPublicUrl(url: string): void {
    this.statusUrl ??= `${url.replace(/\/+$/, '')}/webhooks/http/${encodeURIComponent(this.id)}`;
  }

  protected request(message: OutboundMessage): ProviderRequest {
    const secrets = this.compiled.settings.secrets ?? {};
    const values = placeholderValues(message, this.statusUrl);
    const { request } = this.compiled;
    return {
      method: this.compiled.settings.request.method ?? 'POST',
      path: renderString(request.path, values, secrets, true),
      headers: Object.fromEntries(request.headers.map(([name, t]) => [name, renderString(t, values, secrets)])),
      body: request.body === undefined ? undefined : renderJson(request.body, values, secrets),
    };
  }

  protected override classify(_message: OutboundMessage, answer: ProviderAnswer): SubmitOutcome | undefined {
    const { response, settings } = this.compiled;
    const statusOk = settings.response.successStatus
      ? settings.response.successStatus.includes(answer.status)
      : answer.status >= 200 && answer.status < 300;
    const holds = !response.success || jsonPathFirst(response.success.path, answer.body) === response.success.equals;
    if (statusOk && holds) {
      const id = jsonPathFirst(response.id, answer.body);
      if (typeof id === 'string' || typeof id === 'number') return { kind: 'accepted', carrierIds: [String(id)] };
      return { kind: 'transient', retryAfterMs: 5000, reason: `${this.id}: ${answer.status} without an id` };
    }
    const found = response.errorCode && jsonPathFirst(response.errorCode, answer.body);
    const code = typeof found === 'string' || typeof found === 'number' ? String(found) : String(answer.status);
    const reason = `${this.id}: HTTP ${answer.status}, error ${code}`;
    const numeric = /^-?\d+$/.test(code) ? Number(code) : answer.status;
    if (this.permanent.has(code)) return { kind: 'permanent', errorCode: numeric, reason };
    const listed = this.transient.has(code);
    if (listed || [408, 425, 429].includes(answer.status) || answer.status >= 500) {
      const seconds = response.retryAfter && jsonPathFirst(response.retryAfter, answer.body);
      const header = answer.headers['retry-after'];
      return {
        kind: 'transient',
        retryAfterMs: retryAfter(typeof seconds === 'number' || typeof seconds === 'string' ? String(seconds) : header),
        reason,
        errorCode: numeric,
      };
    }
    return { kind: 'permanent', errorCode: numeric, reason };
  }

  protected carrierId(): string | undefined {
    return undefined;
  }

  protected errorCode(): number | undefined {
    return undefined;
  }
}

/** The placeholders' values for a message (templates.ts PLACEHOLDERS). */
function placeholderValues(message: OutboundMessage, statusUrl: string | undefined): PlaceholderValues {
  const content = message.content;
  const object = isPlainObject(content) ? content : undefined;
  return {
    destination: message.destination,
    destinationPlus: `+${message.destination}`,
    senderName: message.senderName,
    text: typeof content === 'string' ? content : typeof object?.text === 'string' ? object.text : undefined,
    code: typeof content === 'string' ? content : object?.code,
    ttl: Math.floor(message.ttlSeconds),
    messageUuid: message.id,
    statusUrl,
    content,
  };
}
