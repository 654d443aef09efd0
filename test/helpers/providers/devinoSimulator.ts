import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { outcomeOf } from '../../../src/simulators/outcomes.js';
import { closeServer, jsonServer, listenOn } from '../../../src/simulators/simulatorServers.js';
import { type Clock, systemClock } from '../../../src/util/clock.js';
import { isInteger, parseExact, stringifyExact } from './exactJson.js';

/**
 * Devino Telecom's two older HTTP APIs, as their public documentation describes them (github.com/devinotelecom/docs
 * @ 8eaaf33c: VKAPI.rst and viber-resender.rst; profiles/research/vk-ok-viber.md sections 3 and 4), on one real
 * port:
 *
 * - VK API (im.devinotele.com): `POST /send/vk` one message `{vk: {...}}`, `GET /status/vk?message=<id>`;
 * - Viber HTTP API (viber.devinotele.com:444): `POST /send` up to 100 messages, `POST /status` up to 100 ids.
 *
 * Every field is checked as documented and a request the provider would refuse is refused with its documented
 * code. Ids are 64-bit integers beyond 2^53, written as exact JSON integers, and consecutive: a client that reads
 * them as doubles gets the same id for neighbouring messages. Outcomes follow the destination's last digit
 * (src/simulators/outcomes.ts): a message is `enqueued` until `delayMs` of the clock have passed since it was taken,
 * then `delivered` (0-5: `read` after twice the delay; 6 never read), `undelivered` (7), refused at submission (8:
 * VK `phone_invalid`, Viber `error-address-unknown`), or `sent` for ever (9). Statuses are only polled: the
 * callbacks go to a URL set through Devino's manager, which no test registers.
 *
 * Where the documentation is silent, the simulator chooses (and the profiles' notes say so): every answer is HTTP
 * 200 with the code in the body (the documents show no other status); the Viber API refuses a request of more than
 * 100 messages or ids, or a wrong login, with the request-level status `error-syntax` / `error-auth`; the VK API
 * answers a wrong login `validation_error` / `login_not_specified` and a missing or non-integer `templateId`
 * `validation_error` / `template_id_invalid` (no code is documented for either).
 */
export interface DevinoSimulatorOptions {
  readonly login: string;
  readonly password: string;
  readonly delayMs: number;
  /** The clock statuses progress on (a test's); the system clock by default. */
  readonly clock?: Clock;
  /** Sender names registered with Devino: another is refused (Viber `error-subject-unknown`); any when unset. */
  readonly subjects?: readonly string[];
}

export type DevinoApi = 'vk' | 'viber';

/** One request the simulator took, with its body read exactly (64-bit integers as bigints) and its answer. */
export interface DevinoRequest {
  readonly api: DevinoApi;
  readonly kind: 'send' | 'status';
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
  readonly answer: unknown;
}

/** A message the simulator took, by its id. */
interface Taken {
  readonly api: DevinoApi;
  readonly destination: string;
  readonly at: number;
}

export const VK_PRIORITIES = ['low', 'medium', 'high', 'realtime'] as const;
export const VIBER_PRIORITIES = ['low', 'normal', 'high', 'realtime'] as const;
const VK_ROUTES = ['vk', 'ok', 'ok,vk', 'vk,ok'];
/** The most messages (and ids) one Viber request may carry. */
export const VIBER_BATCH = 100;
/** The first id issued: beyond 2^53 (9007199254740992), where doubles are 512 apart. */
const FIRST_ID = 3158611117333282817n;

const VK_REQUEST_DESCRIPTIONS: Readonly<Record<string, string>> = {
  validation_error: 'invalid_json',
  queue_full: 'login_send_queue_overflow',
  system_error: 'internal server error (simulated)',
};

export class DevinoSimulator {
  readonly requests: DevinoRequest[] = [];
  private server: Server | undefined;
  private readonly clock: Clock;
  private readonly taken = new Map<bigint, Taken>();
  private nextId = FIRST_ID;
  /** Request-level errors the next send requests of an API get, one each. */
  private readonly failures: Record<DevinoApi, string[]> = { vk: [], viber: [] };
  port = 0;

  constructor(private readonly options: DevinoSimulatorOptions) {
    this.clock = options.clock ?? systemClock;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * The next `times` send requests of `api` are refused as a whole with `code`: VK `queue_full`, `system_error`,
   * `validation_error`; Viber `error-system`, `error-account-locked`, `error-auth`...
   */
  failNext(api: DevinoApi, code: string, times = 1): void {
    for (let i = 0; i < times; i++) this.failures[api].push(code);
  }

  /** The send requests of an API, in order. */
  sends(api: DevinoApi): DevinoRequest[] {
    return this.requests.filter((r) => r.api === api && r.kind === 'send');
  }

  /** Ids issued so far, as decimal strings, with their destinations. */
  issued(api: DevinoApi): { id: string; destination: string }[] {
    return [...this.taken]
      .filter(([, m]) => m.api === api)
      .map(([id, m]) => ({ id: String(id), destination: m.destination }));
  }

  async start(): Promise<number> {
    this.server = jsonServer(
      (req, res) => this.handle(req, res),
      (error) => ({ status: 500, body: { status: 'error-system', code: 'system_error', description: String(error) } }),
    );
    this.port = await listenOn(this.server);
    return this.port;
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const route = `${req.method} ${url.pathname}`;
    let body: unknown;
    let malformed = false;
    try {
      body = text ? parseExact(text) : undefined;
    } catch {
      malformed = true;
    }
    const authorized = this.authorized(req.headers.authorization);
    const record = (api: DevinoApi, kind: 'send' | 'status', answer: unknown): void => {
      this.requests.push({
        api,
        kind,
        method: req.method ?? '',
        path: url.pathname + url.search,
        authorization: req.headers.authorization,
        body,
        answer,
      });
      answerJson(res, answer);
    };
    switch (route) {
      case 'POST /send/vk':
        return record('vk', 'send', this.vkSend(authorized, malformed, body));
      case 'GET /status/vk':
        return record('vk', 'status', this.vkStatus(authorized, url.searchParams.get('message')));
      case 'POST /send':
        return record('viber', 'send', this.viberSend(authorized, malformed, body));
      case 'POST /status':
        return record('viber', 'status', this.viberStatus(authorized, malformed, body));
      default:
        res.writeHead(404).end();
    }
  }

  private authorized(header: string | undefined): boolean {
    const expected = Buffer.from(`${this.options.login}:${this.options.password}`).toString('base64');
    return header === `Basic ${expected}`;
  }

  // ---- VK API ----

  private vkSend(authorized: boolean, malformed: boolean, body: unknown): unknown {
    if (!authorized) return { code: 'validation_error', description: 'login_not_specified' };
    if (malformed || !isObject(body)) return { code: 'validation_error', description: 'invalid_json' };
    const forced = this.failures.vk.shift();
    if (forced) return { code: forced, description: VK_REQUEST_DESCRIPTIONS[forced] ?? forced };
    const vk = body.vk;
    if (!isObject(vk)) return { code: 'validation_error', description: 'messages_not_specified' };
    const templateId = vk.templateId;
    if (!isInteger(templateId) && !(typeof templateId === 'string' && /^\d+$/.test(templateId)))
      return { code: 'validation_error', description: 'template_id_invalid' };
    const code = vkRefusal(vk, this.options.subjects);
    if (code) return { code: 'ok', description: '', result: { code } };
    const destination = String(vk.phone).replace(/^\+/, '');
    if (outcomeOf(destination) === 'rejected')
      return { code: 'ok', description: '', result: { code: 'phone_invalid' } };
    const messageId = this.take('vk', destination);
    return { code: 'ok', description: '', result: { code: 'ok', messageId } };
  }

  private vkStatus(authorized: boolean, message: string | null): unknown {
    if (!authorized) return { code: 'validation_error', description: 'login_not_specified' };
    if (message === null || !/^\d+$/.test(message))
      return { code: 'validation_error', description: 'message_not_specified' };
    const providerId = BigInt(message);
    const taken = this.taken.get(providerId);
    if (!taken || taken.api !== 'vk')
      return { code: 'ok', description: '', result: { providerId, code: 'unknown_message_id' } };
    const status = this.statusOf(taken);
    return {
      code: 'ok',
      description: '',
      result: {
        providerId,
        code: 'ok',
        status,
        statusAt: devinoTime(this.clock.now()),
        ...(status === 'undelivered' ? { error: 'Не доставлено' } : {}),
      },
    };
  }

  // ---- Viber HTTP API ----

  private viberSend(authorized: boolean, malformed: boolean, body: unknown): unknown {
    if (!authorized) return { status: 'error-auth' };
    if (malformed || !isObject(body)) return { status: 'error-syntax' };
    const forced = this.failures.viber.shift();
    if (forced) return { status: forced };
    const { messages, commonData } = body;
    const resend = body.resendSms ?? 'false';
    if (!['true', 'false', true, false].includes(resend as string | boolean)) return { status: 'error-syntax' };
    if (!Array.isArray(messages) || messages.length === 0 || messages.length > VIBER_BATCH)
      return { status: 'error-syntax' };
    if (commonData !== undefined && !isObject(commonData)) return { status: 'error-syntax' };
    const results = messages.map((item: unknown) => {
      if (!isObject(item)) return { code: 'error-content-not-specified' };
      const message = { ...commonData, ...item };
      const code = viberRefusal(message, resend === true || resend === 'true', this.options.subjects);
      if (code) return { code };
      const destination = String(message.address);
      if (outcomeOf(destination) === 'rejected') return { code: 'error-address-unknown' };
      return { providerId: this.take('viber', destination), code: 'ok' };
    });
    return { status: 'ok', messages: results };
  }

  private viberStatus(authorized: boolean, malformed: boolean, body: unknown): unknown {
    if (!authorized) return { status: 'error-auth' };
    if (malformed || !isObject(body)) return { status: 'error-syntax' };
    const ids = body.messages;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > VIBER_BATCH) return { status: 'error-syntax' };
    const seen = new Set<string>();
    const messages = ids.map((raw: unknown) => {
      if (!isInteger(raw) || raw <= 0) return { providerId: raw, code: 'error-instant-message-provider-id-format' };
      const providerId = BigInt(raw);
      if (seen.has(String(providerId))) return { providerId, code: 'error-instant-message-provider-id-duplicate' };
      seen.add(String(providerId));
      const taken = this.taken.get(providerId);
      if (!taken || taken.api !== 'viber') return { providerId, code: 'error-instant-message-provider-id-unknown' };
      const status = this.statusOf(taken);
      return {
        providerId,
        code: 'ok',
        status,
        statusAt: devinoTime(this.clock.now()),
        ...(status === 'undelivered' ? { errorCode: 'not-viber-user' } : {}),
      };
    });
    return { status: 'ok', messages };
  }

  // ---- both ----

  private take(api: DevinoApi, destination: string): bigint {
    const id = this.nextId++;
    this.taken.set(id, { api, destination, at: this.clock.now().getTime() });
    return id;
  }

  /** A message's status now, by its destination's last digit and the time since it was taken. */
  private statusOf(message: Taken): string {
    const elapsed = this.clock.now().getTime() - message.at;
    if (elapsed < this.options.delayMs) return 'enqueued';
    switch (outcomeOf(message.destination)) {
      case 'undelivered':
        return 'undelivered';
      case 'silent':
        return 'sent';
      case 'delivered':
        return 'delivered';
      default:
        return elapsed < 2 * this.options.delayMs ? 'delivered' : 'read';
    }
  }
}

/** The documented code of the first problem of a VK API message (`result.code`), or undefined. */
function vkRefusal(vk: Record<string, unknown>, subjects: readonly string[] | undefined): string | undefined {
  if (vk.subject === undefined) return 'subject_not_specified';
  if (typeof vk.subject !== 'string' || vk.subject.length < 1 || vk.subject.length > 11) return 'subject_invalid';
  if (subjects && !subjects.includes(vk.subject)) return 'subject_invalid';
  if (vk.priority === undefined) return 'priority_not_specified';
  if (!(VK_PRIORITIES as readonly unknown[]).includes(vk.priority)) return 'priority_invalid';
  if (vk.routes === undefined) return 'routes_not_specified';
  if (!Array.isArray(vk.routes) || !VK_ROUTES.includes(vk.routes.join(','))) return 'routes_invalid';
  const vp = vk.validityPeriod;
  if (!isInteger(vp) || vp < 15 || vp > 86_400) return 'vp_invalid';
  if (vk.phone === undefined) return 'phone_not_specified';
  if (typeof vk.phone !== 'string' || !/^\+?[1-9]\d{7,14}$/.test(vk.phone)) return 'phone_invalid';
  // The template's values are the message's text: without them there is nothing to send.
  if (!isObject(vk.templateData) || Object.keys(vk.templateData).length === 0) return 'text_not_specified';
  if (!Object.values(vk.templateData).every((v) => typeof v === 'string')) return 'text_invalid';
  return undefined;
}

/** The documented code of the first problem of a Viber HTTP API message (`messages[].code`), or undefined. */
function viberRefusal(
  m: Record<string, unknown>,
  resendSms: boolean,
  subjects: readonly string[] | undefined,
): string | undefined {
  if (m.subject === undefined) return 'error-subject-not-specified';
  if (typeof m.subject !== 'string' || m.subject.length < 1 || m.subject.length > 11) return 'error-subject-format';
  if (subjects && !subjects.includes(m.subject)) return 'error-subject-unknown';
  if (!(VIBER_PRIORITIES as readonly unknown[]).includes(m.priority)) return 'error-priority-format';
  const vp = m.validityPeriodSec;
  if (!isInteger(vp) || vp < 30 || vp > 86_400) return 'error-validity-period-seconds-format';
  if (m.comment !== undefined && typeof m.comment !== 'string') return 'error-comment-format';
  if (m.type === undefined) return 'error-instant-message-type-not-specified';
  if (m.type !== 'viber') return 'error-instant-message-type-format';
  if (m.address === undefined) return 'error-address-not-specified';
  if (!/^[1-9]\d{7,14}$/.test(typeof m.address === 'string' ? m.address : String(m.address)))
    return 'error-address-format';
  const content = viberContentRefusal(m.contentType, m.content, resendSms);
  if (content) return content;
  const sms = ['smsText', 'smsSrcAddress', 'smsValidityPeriodSec'].some((k) => m[k] !== undefined);
  if (sms && !resendSms) return 'error-resend-sms-error';
  const smsVp = m.smsValidityPeriodSec;
  if (smsVp !== undefined && (!isInteger(smsVp) || smsVp < 60 || smsVp > 86_400))
    return 'error-resend-sms-validity-period-error';
  return undefined;
}

/** Viber content by its type: text; button = text <= 1000, caption <= 19, action, image optional; image alone. */
function viberContentRefusal(type: unknown, content: unknown, resendSms: boolean): string | undefined {
  if (type !== 'text' && type !== 'button' && type !== 'image') return 'error-content-type-format';
  if (!isObject(content)) return 'error-content-not-specified';
  const { text, caption, action, imageUrl } = content;
  const filled = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
  if (type === 'text') {
    if (!filled(text)) return 'error-content-not-specified';
    return undefined;
  }
  if (type === 'button') {
    if (!filled(text) || !filled(caption) || !filled(action)) return 'error-content-not-specified';
    if (text.length > 1000 || caption.length > 19 || !/^https?:\/\//.test(action)) return 'error-content-type-format';
    if (imageUrl !== undefined && !(filled(imageUrl) && /^https?:\/\//.test(imageUrl)))
      return 'error-content-type-format';
    return undefined;
  }
  // The field table names it `image`, the example `imageUrl`: both are taken. An image cannot fall back to SMS.
  const image = imageUrl ?? content.image;
  if (!filled(image)) return 'error-content-not-specified';
  if (!/^https?:\/\//.test(image) || resendSms) return 'error-content-type-format';
  return undefined;
}

/** Devino's DateTime: `yyyy-MM-dd HH:mm:ss` (UTC for the Viber API; the VK poll does not say). */
function devinoTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}

function answerJson(res: ServerResponse, body: unknown): void {
  const text = stringifyExact(body);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
