import { STATUS_CODES } from 'node:http';
import type { Clock } from '../../../util/clock.js';
import type { OutboundMessage, SubmitOutcome } from '../../connector.js';
import { isPlainObject } from '../../../shared/text.js';
import {
  HttpConnector,
  type ProviderAnswer,
  type ProviderRequest,
  retryAfter,
  transientStatus,
} from '../httpConnector.js';
import type { HttpFlowConfig } from '../../connectorConfig.js';
import type { CompiledHttpConnector, CompiledRequest } from './httpConnectorConfig.js';
import { type JsonPath, jsonPathAll, jsonPathFirst } from './jsonPath.js';
import { errorNumber, priceOf, type StatusReport, statusReports } from './statusReports.js';
import { type PlaceholderValues, placeholdersOf, renderJson, renderString } from './templates.js';

/** A polled message is asked about until its lifetime ends and this long after: a late final status still counts. */
const POLL_GRACE_MS = 600_000;

/**
 * A provider described in the configuration (`type: "http"`, DESIGN 19): the request filled from its templates,
 * the answer read by its paths. A success is an HTTP status of `successStatus` (2xx by default) whose answer holds
 * `success` when one is set, and an id at `id`. Otherwise the error code at `errorCode` (or the HTTP status)
 * decides: listed `permanent`, the message is unsent; listed `transient`, or a 408, 425, 429 or 5xx, it is tried
 * again after `retryAfter` (the answer's, else Retry-After); any other refusal is permanent.
 *
 * With a `batch`, the messages handed over together (a turn of the submitter) go up to `size` a request, each as
 * its `item` in the body's array, and each gets the outcome of its own result. With a `status.poll`, accepted
 * messages are polled (connectors/statusPolls.ts) until their lifetime ends.
 */
export class DeclarativeConnector extends HttpConnector {
  readonly type = 'http';
  readonly channel: CompiledHttpConnector['settings']['channel'];
  private readonly permanent: ReadonlySet<string>;
  private readonly transient: ReadonlySet<string>;
  private statusUrl: string | undefined;
  private balance: number | null = null;
  /** Messages waiting to go in the next batch request, and whether it is planned. */
  private pending: { message: OutboundMessage; done: (outcome: SubmitOutcome) => void }[] = [];
  private flushPlanned = false;

  constructor(
    readonly compiled: CompiledHttpConnector,
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

  publicUrlMissing(): string | undefined {
    if (this.statusUrl) return undefined;
    const { request, batch } = this.compiled;
    const templates = [request.path, ...request.headers.map(([, t]) => t), request.body, batch?.item];
    if (!templates.some((t) => t && placeholdersOf(t).has('statusUrl'))) return undefined;
    return 'declarative connector without publicUrl: its requests name no status URL, so no status report will come';
  }

  override state() {
    return Object.assign(super.state(), { profile: this.compiled.settings.profile, balance: this.balance });
  }

  override async submit(message: OutboundMessage): Promise<SubmitOutcome> {
    if (!this.compiled.batch) return super.submit(message);
    return new Promise((done) => {
      this.pending.push({ message, done });
      if (this.pending.length >= this.compiled.batch!.size) this.flush();
      else if (!this.flushPlanned) {
        // The rest of the turn's messages are handed over in this tick: they go together.
        this.flushPlanned = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushPlanned = false;
    const size = this.compiled.batch!.size;
    while (this.pending.length > 0) {
      const taken = this.pending.splice(0, size);
      const messages = taken.map((p) => p.message);
      void this.submitMany(messages, this.batchRequest(messages), (answer) => this.readBatch(messages, answer)).then(
        (outcomes) => taken.forEach((p, i) => p.done(this.withPoll(p.message, outcomes[i]!))),
      );
    }
  }

  private batchRequest(messages: readonly OutboundMessage[]): ProviderRequest {
    const { batch, request } = this.compiled;
    const values = this.values(messages[0]!);
    const envelope = this.render(request, values);
    const secrets = this.compiled.settings.secrets ?? {};
    const items = messages.map((m) => renderJson(batch!.item, this.values(m), secrets));
    return Object.assign({}, envelope, { body: Object.assign({}, envelope.body as object, { [batch!.into]: items }) });
  }

  private readBatch(messages: readonly OutboundMessage[], answer: ProviderAnswer): SubmitOutcome[] {
    const refusal = this.refusal(answer);
    if (refusal) return messages.map(() => refusal);
    this.noteBalance(answer);
    const results = jsonPathAll(this.compiled.response.results!, answer.body);
    return messages.map((_, i) =>
      i < results.length
        ? this.readResult(results[i], answer)
        : { kind: 'transient', retryAfterMs: 5000, reason: `${this.id}: no result for message ${i + 1} of the batch` },
    );
  }

  protected request(message: OutboundMessage): ProviderRequest {
    return this.render(this.compiled.request, this.values(message));
  }

  /** A request template filled: its path, headers, body and authentication. */
  private render(request: CompiledRequest, values: PlaceholderValues): ProviderRequest {
    const secrets = this.compiled.settings.secrets ?? {};
    const headers = Object.fromEntries(request.headers.map(([name, t]) => [name, renderString(t, values, secrets)]));
    if (request.basic) {
      const user = renderString(request.basic.user, values, secrets);
      const password = renderString(request.basic.password, values, secrets);
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    const template = request.body;
    return {
      method: request.method,
      encoding: request.encoding,
      path: renderString(request.path, values, secrets, true),
      headers,
      body: template === undefined ? undefined : renderJson(template, values, secrets),
    };
  }

  protected override classify(message: OutboundMessage, answer: ProviderAnswer): SubmitOutcome | undefined {
    const refusal = this.refusal(answer);
    if (refusal) return refusal;
    this.noteBalance(answer);
    return this.withPoll(message, this.readResult(answer.body, answer));
  }

  /** The refusal of a whole answer (not its HTTP success, or not holding `success`), or undefined. */
  private refusal(answer: ProviderAnswer): SubmitOutcome | undefined {
    const { response, settings } = this.compiled;
    const statusOk = settings.response.successStatus
      ? settings.response.successStatus.includes(answer.status)
      : answer.status >= 200 && answer.status < 300;
    const holds = !response.success || jsonPathFirst(response.success.path, answer.body) === response.success.equals;
    return statusOk && holds ? undefined : this.refused(answer.body, answer);
  }

  /** One message's result (the whole answer, or its item of a batch's results): accepted with an id, or refused. */
  private readResult(result: unknown, answer: ProviderAnswer): SubmitOutcome {
    const { response } = this.compiled;
    const id = jsonPathFirst(response.id, result);
    if (typeof id === 'string' || typeof id === 'number') {
      const price = priceOf(response.price && jsonPathFirst(response.price, result));
      return { kind: 'accepted', carrierIds: [String(id)], ...(price === undefined ? {} : { buyPrice: price }) };
    }
    if (result !== answer.body && firstFound(response.errorCode, result) !== undefined)
      return this.refused(result, answer);
    return { kind: 'transient', retryAfterMs: 5000, reason: `${this.id}: ${answer.status} without an id` };
  }

  /** A refusal, by the error code at `errorCode` of `where` (or the HTTP status). */
  private refused(where: unknown, answer: ProviderAnswer): SubmitOutcome {
    const { response } = this.compiled;
    const found = firstFound(response.errorCode, where);
    const code = typeof found === 'string' || typeof found === 'number' ? String(found) : String(answer.status);
    // In words for the operator: the provider's own, else the HTTP status's name.
    const text = firstFound(response.errorText, where);
    const words = typeof text === 'string' && text ? text.slice(0, 200) : (STATUS_CODES[answer.status] ?? 'error');
    const reason = `${this.id}: HTTP ${answer.status}, error ${code}: ${words}`;
    const numeric = errorNumber(this.compiled, code) ?? answer.status;
    if (this.permanent.has(code)) return { kind: 'permanent', errorCode: numeric, reason };
    if (this.transient.has(code) || transientStatus(answer.status)) {
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

  private noteBalance(answer: ProviderAnswer): void {
    const path = this.compiled.response.balance;
    const balance = path && priceOf(jsonPathFirst(path, answer.body));
    if (balance !== undefined) this.balance = balance;
  }

  /** An accepted message of a polled provider is polled until its lifetime ends. */
  private withPoll(message: OutboundMessage, outcome: SubmitOutcome): SubmitOutcome {
    if (outcome.kind !== 'accepted' || !this.compiled.poll) return outcome;
    const until = new Date(this.clock.nowMs() + message.ttlSeconds * 1000 + POLL_GRACE_MS);
    return Object.assign({}, outcome, { pollUntil: until });
  }

  /**
   * Asks the provider about these messages (by their ids), `status.poll.batch` a request; a request that fails is
   * left out (they are asked again at the next poll).
   */
  async poll(carrierIds: readonly string[], at: Date): Promise<StatusReport[]> {
    const poll = this.compiled.poll;
    if (!poll) return [];
    const reports: StatusReport[] = [];
    for (let i = 0; i < carrierIds.length; i += poll.batch) {
      const ids = carrierIds.slice(i, i + poll.batch);
      try {
        const answer = await this.call(this.render(poll.request, { carrierId: ids[0], carrierIds: ids }));
        if (answer.status >= 200 && answer.status < 300)
          reports.push(...statusReports(this.compiled, poll, answer.body, at));
      } catch {
        // Asked again at the next poll.
      }
    }
    return reports;
  }

  protected carrierId(): string | undefined {
    return undefined;
  }

  protected errorCode(): number | undefined {
    return undefined;
  }

  /** The placeholders' values for a message (templates.ts PLACEHOLDERS). */
  private values(message: OutboundMessage): PlaceholderValues {
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
      externalMessageId: message.externalMessageId ?? undefined,
      statusUrl: this.statusUrl,
      content,
      contentType: object?.contentType,
      caption: object?.caption,
      action: object?.action,
      imageUrl: object?.imageUrl,
    };
  }
}

/** The value at the first of `paths` that finds one. */
function firstFound(paths: readonly JsonPath[], document: unknown): unknown {
  for (const path of paths) {
    const value = jsonPathFirst(path, document);
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}
