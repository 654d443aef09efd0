import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { request } from 'undici';
import { outcomeOf } from '../../../src/simulators/outcomes.js';
import { closeServer, jsonServer, listenOn, sendJson } from '../../../src/simulators/simulatorServers.js';
import { Timers } from '../../../src/simulators/timers.js';
import type { Clock } from '../../../src/util/clock.js';
import { yymmddhhmm } from '../../../src/util/time.js';

/*
 * Twilio's REST API (2010-04-01) for the two resources Herald's profiles use, as Twilio documents them
 * (profiles/research/flashcall-voicecode-sms.md 3.1 and 4.1; twilio/twilio-oai spec/json/twilio_api_v2010.json;
 * the error pages https://www.twilio.com/docs/api/errors/<code>):
 *
 * - POST /2010-04-01/Accounts/{AccountSid}/Messages.json and .../Calls.json, form-urlencoded, HTTP Basic with the
 *   account SID and auth token; 201 with the Message or Call resource as JSON.
 * - A refusal is {code, message, more_info, status} with the HTTP status (20003 401 authentication, 20404 404,
 *   20429 429 too many requests: never processed, safe to retry; 4xx parameter errors 400).
 * - Status callbacks are form-urlencoded POSTs to StatusCallback, signed by X-Twilio-Signature: base64 of the
 *   HMAC-SHA1, keyed by the auth token, of the callback's full URL followed by every POST parameter sorted by name,
 *   each name then its value. Messages: MessageSid, MessageStatus, ErrorCode (on failed and undelivered) and
 *   RawDlrDoneDate (YYMMDDhhmm, on delivered and undelivered), none for the initial status. Calls: CallSid,
 *   CallStatus and the standard request parameters (AccountSid, From, To, Caller, Called, ApiVersion, Direction),
 *   only for the completed event unless StatusCallbackEvent asks for more. (Other parameters Twilio adds, such as a
 *   call's duration, were not read in its documentation and are not sent.)
 *
 * What happens to a message or call follows the destination's last digit (src/simulators/outcomes.ts): delivered
 * (a call: completed), undelivered (a message: undelivered with 30003 "Unreachable destination handset"; a call:
 * no-answer), refused at creation (21211), or silent (a message: sent and nothing more; a call: no callback).
 */

export type TwilioResource = 'Messages' | 'Calls';

/** One request the simulator took, with its form fields and Twilio's answer. */
export interface TwilioRequest {
  readonly resource: TwilioResource;
  readonly params: Readonly<Record<string, string>>;
  /** Every value of a repeated field (StatusCallbackEvent). */
  readonly repeated: Readonly<Record<string, readonly string[]>>;
  readonly contentType: string;
  readonly status: number;
  /** Twilio's error code of a refusal; null for a 201. */
  readonly code: number | null;
  readonly sid: string | null;
  /** Calls: the text of every <Say> in the TwiML, its entities read. */
  readonly said?: readonly string[];
}

/** One status callback the simulator posted, and Herald's answer. */
export interface TwilioCallback {
  readonly url: string;
  readonly params: Readonly<Record<string, string>>;
  readonly signature: string;
  readonly status: number | null;
}

/** A refusal the next request gets whatever it holds (a rate limit, an outage). */
export type ForcedFailure = { status: 429; retryAfterSeconds?: number } | { status: 500 | 503 };

export interface TwilioSimulatorOptions {
  readonly accountSid: string;
  readonly authToken: string;
  /** Between one status callback and the next of a message or call. */
  readonly delayMs: number;
  readonly clock?: Clock;
}

const API_VERSION = '2010-04-01';
const E164 = /^\+[1-9]\d{1,14}$/;
/** An alphanumeric sender id: up to 11 letters, digits and spaces, at least one letter. */
const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
const SHORT_CODE = /^\d{5,6}$/;
const BODY_MAX = 1600;
const TWIML_MAX = 4000;
const VALIDITY_MAX = 36_000;
const CALL_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed']);
/** The carrier error of an undelivered message: https://www.twilio.com/docs/api/errors/30003. */
export const TWILIO_UNDELIVERED_ERROR = 30003;

/** A created Message or Call, as its 201 answer carries it. */
type TwilioResource201 = { readonly sid: string } & Record<string, unknown>;

class Refusal {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly message: string,
  ) {}
}

export class TwilioSimulator {
  readonly requests: TwilioRequest[] = [];
  readonly callbacks: TwilioCallback[] = [];
  private server: Server | undefined;
  private readonly timers: Timers;
  private readonly forced: ForcedFailure[] = [];
  /** Checks waiting on the callbacks, run again as each one is answered. */
  private readonly waiting = new Set<() => void>();
  private port = 0;

  constructor(private readonly options: TwilioSimulatorOptions) {
    this.timers = new Timers(options.clock);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = jsonServer(
      (req, res) => this.handle(req, res),
      () => errorAnswer(new Refusal(500, 20500, 'Internal Server Error')),
    );
    this.port = await listenOn(this.server, '127.0.0.1', 0);
  }

  async stop(): Promise<void> {
    this.timers.clear();
    await closeServer(this.server);
  }

  /** The next request (of either resource) is refused so, once, before anything else is looked at. */
  failNext(failure: ForcedFailure): void {
    this.forced.push(failure);
  }

  /**
   * The callbacks `select` picks, once there are `count` of them (each answered by Herald, or not at all): checked
   * now and after each callback, failing after `timeoutMs`.
   */
  untilCallbacks(select: (c: TwilioCallback) => boolean, count: number, timeoutMs = 10_000): Promise<TwilioCallback[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(check);
        reject(new Error(`${count} callbacks awaited, ${this.callbacks.filter(select).length} came`));
      }, timeoutMs);
      const check = () => {
        const found = this.callbacks.filter(select);
        if (found.length < count) return;
        clearTimeout(timer);
        this.waiting.delete(check);
        resolve(found);
      };
      this.waiting.add(check);
      check();
    });
  }

  /** The X-Twilio-Signature of a callback to `url` with these POST parameters, signed with `token`. */
  static signature(token: string, url: string, params: Readonly<Record<string, string>>): string {
    const data = Object.keys(params)
      .sort()
      .reduce((signed, name) => signed + name + params[name], url);
    return createHmac('sha1', token).update(data, 'utf8').digest('base64');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0]!;
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(path);
    if (req.method !== 'POST' || !match) {
      return send(res, new Refusal(404, 20404, `The requested resource ${path} was not found`));
    }
    const resource = match[2] as TwilioResource;
    const contentType = String(req.headers['content-type'] ?? '');
    // A body sent as anything but a form is not read: its fields are missing (error 21604 names this cause).
    const form = contentType.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(raw) : undefined;
    const params: Record<string, string> = {};
    const repeated: Record<string, string[]> = {};
    for (const [name, value] of form ?? []) {
      params[name] ??= value;
      (repeated[name] ??= []).push(value);
    }
    const record = (status: number, code: number | null, sid: string | null, said?: string[]) =>
      this.requests.push({ resource, params, repeated, contentType, status, code, sid, ...(said ? { said } : {}) });

    const forced = this.forced.shift();
    if (forced) {
      const refusal =
        forced.status === 429
          ? new Refusal(429, 20429, 'Too Many Requests')
          : new Refusal(forced.status, 20500, 'Internal Server Error');
      record(refusal.status, refusal.code, null);
      const retryAfter = forced.status === 429 ? forced.retryAfterSeconds : undefined;
      return send(res, refusal, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
    }
    if (!this.authenticated(req.headers.authorization)) {
      record(401, 20003, null);
      return send(res, new Refusal(401, 20003, 'Authenticate'));
    }
    if (decodeURIComponent(match[1]!) !== this.options.accountSid) {
      record(404, 20404, null);
      return send(res, new Refusal(404, 20404, `The requested resource ${path} was not found`));
    }
    try {
      if (resource === 'Messages') {
        const message = this.createMessage(params);
        record(201, null, message.sid);
        sendJson(res, { status: 201, body: message });
        this.messageLifecycle(message.sid, params);
      } else {
        const { call, said } = this.createCall(params, repeated);
        record(201, null, call.sid, said);
        sendJson(res, { status: 201, body: call });
        this.callLifecycle(call.sid, params, repeated.StatusCallbackEvent ?? []);
      }
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      record(error.status, error.code, null);
      send(res, error);
    }
  }

  private authenticated(header: string | undefined): boolean {
    if (!header?.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    return decoded === `${this.options.accountSid}:${this.options.authToken}`;
  }

  /** Checks a Message's fields as Twilio does, in the order a request would meet them, and makes the resource. */
  private createMessage(p: Record<string, string>): TwilioResource201 {
    const to = p.To;
    if (!to) throw new Refusal(400, 21604, "A 'To' phone number is required.");
    if (!E164.test(to) || outcomeOf(to) === 'rejected')
      throw new Refusal(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    const from = p.From;
    if (!from && !p.MessagingServiceSid) throw new Refusal(400, 21603, "A 'From' phone number is required.");
    if (from && !E164.test(from) && !ALPHANUMERIC_SENDER.test(from) && !SHORT_CODE.test(from))
      throw new Refusal(
        400,
        21212,
        `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`,
      );
    const body = p.Body ?? '';
    if (body === '' && !p.MediaUrl) throw new Refusal(400, 21602, 'Message body is required.');
    if ([...body].length > BODY_MAX)
      throw new Refusal(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (p.ValidityPeriod !== undefined) {
      const seconds = Number(p.ValidityPeriod);
      if (!/^\d+$/.test(p.ValidityPeriod) || seconds < 1 || seconds > VALIDITY_MAX)
        throw new Refusal(400, 21624, 'Invalid validity period value');
    }
    if (p.StatusCallback !== undefined && !callbackUrl(p.StatusCallback))
      throw new Refusal(400, 21609, "Invalid 'StatusCallback'");

    const sid = twilioSid('SM');
    const now = rfc2822(this.timers.clock.now());
    return {
      account_sid: this.options.accountSid,
      api_version: API_VERSION,
      body,
      date_created: now,
      date_sent: null,
      date_updated: now,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: from ?? null,
      messaging_service_sid: p.MessagingServiceSid ?? null,
      num_media: '0',
      num_segments: String(segments(body)),
      // "populated after the message has been sent" (the Message resource's price): null at creation.
      price: null,
      price_unit: null,
      sid,
      status: 'queued',
      subresource_uris: { media: `${this.accountUri()}/Messages/${sid}/Media.json` },
      to,
      uri: `${this.accountUri()}/Messages/${sid}.json`,
    };
  }

  /** Checks a Call's fields as Twilio does and makes the resource; `said` is what its TwiML's <Say> would speak. */
  private createCall(
    p: Record<string, string>,
    repeated: Record<string, string[]>,
  ): { call: TwilioResource201; said: string[] } {
    const to = p.To;
    if (!to) throw new Refusal(400, 21201, "No 'To' number is specified");
    if (!E164.test(to) || outcomeOf(to) === 'rejected')
      throw new Refusal(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    const from = p.From;
    if (!from) throw new Refusal(400, 21213, "A 'From' phone number is required.");
    // "If the `to` parameter is a phone number, `From` must also be a phone number."
    if (!E164.test(from)) throw new Refusal(400, 21212, `The 'From' number ${from} is not a valid phone number.`);
    if (p.Twiml === undefined && !p.Url && !p.ApplicationSid)
      throw new Refusal(400, 21200, 'Either Url, Twiml or ApplicationSid is required to make a call');
    let said: string[] = [];
    if (p.Twiml !== undefined && !p.Url) {
      if (p.Twiml.length > TWIML_MAX)
        throw new Refusal(400, 32018, 'Twiml size exceeded maximum allowed value of 4000 characters');
      const parsed = parseTwiml(p.Twiml);
      if (typeof parsed === 'string') throw new Refusal(400, 12100, `Document parse failure: ${parsed}`);
      said = parsed;
    }
    if (p.StatusCallback !== undefined && !callbackUrl(p.StatusCallback))
      throw new Refusal(400, 21200, `StatusCallback ${p.StatusCallback} is not a valid URL`);
    if (p.StatusCallbackMethod !== undefined && !['GET', 'POST'].includes(p.StatusCallbackMethod))
      throw new Refusal(400, 21200, 'StatusCallbackMethod must be GET or POST');
    const events = repeated.StatusCallbackEvent ?? [];
    if (events.some((e) => !CALL_EVENTS.has(e))) throw new Refusal(400, 21626, "Invalid 'StatusCallbackEvent'");

    const sid = twilioSid('CA');
    const now = rfc2822(this.timers.clock.now());
    const call = {
      account_sid: this.options.accountSid,
      answered_by: null,
      api_version: API_VERSION,
      caller_name: null,
      date_created: now,
      date_updated: now,
      direction: 'outbound-api',
      duration: null,
      end_time: null,
      forwarded_from: null,
      from,
      from_formatted: from,
      group_sid: null,
      parent_call_sid: null,
      phone_number_sid: null,
      // Filled once the call has ended.
      price: null,
      price_unit: 'USD',
      queue_time: '0',
      sid,
      start_time: null,
      status: 'queued',
      subresource_uris: { notifications: `${this.accountUri()}/Calls/${sid}/Notifications.json` },
      to,
      to_formatted: to,
      trunk_sid: null,
      uri: `${this.accountUri()}/Calls/${sid}.json`,
    };
    return { call, said };
  }

  private accountUri(): string {
    return `/${API_VERSION}/Accounts/${this.options.accountSid}`;
  }

  /** sent, then delivered or undelivered, one delay apart; a silent destination hears of nothing after sent. */
  private messageLifecycle(sid: string, p: Record<string, string>): void {
    if (!p.StatusCallback) return;
    const outcome = outcomeOf(p.To!);
    const base = { AccountSid: this.options.accountSid, ApiVersion: API_VERSION, From: p.From ?? '', To: p.To! };
    const statuses: Record<string, string>[] = [{ MessageStatus: 'sent' }];
    const done = yymmddhhmm(this.timers.clock.now());
    if (outcome === 'undelivered')
      statuses.push({
        MessageStatus: 'undelivered',
        ErrorCode: String(TWILIO_UNDELIVERED_ERROR),
        RawDlrDoneDate: done,
      });
    else if (outcome !== 'silent') statuses.push({ MessageStatus: 'delivered', RawDlrDoneDate: done });
    this.postInTurn(
      p.StatusCallback,
      statuses.map((s) => ({ ...base, MessageSid: sid, ...s })),
    );
  }

  /** The events the request subscribed to (by default only completed): a completed call, or one never answered. */
  private callLifecycle(sid: string, p: Record<string, string>, subscribed: readonly string[]): void {
    if (!p.StatusCallback || p.StatusCallbackMethod === 'GET') return;
    const outcome = outcomeOf(p.To!);
    if (outcome === 'silent') return;
    const events = new Set(subscribed.length > 0 ? subscribed : ['completed']);
    const answered = outcome !== 'undelivered';
    const steps: Record<string, string>[] = [];
    if (events.has('initiated')) steps.push({ CallStatus: 'initiated' });
    if (events.has('ringing')) steps.push({ CallStatus: 'ringing' });
    if (answered && events.has('answered')) steps.push({ CallStatus: 'in-progress' });
    if (events.has('completed')) steps.push({ CallStatus: answered ? 'completed' : 'no-answer' });
    const base = {
      AccountSid: this.options.accountSid,
      ApiVersion: API_VERSION,
      CallSid: sid,
      Called: p.To!,
      Caller: p.From!,
      Direction: 'outbound-api',
      From: p.From!,
      To: p.To!,
    };
    this.postInTurn(
      p.StatusCallback,
      steps.map((s) => ({ ...base, ...s })),
    );
  }

  /** Posts callbacks one delay apart, each after the previous one was answered, so that they arrive in order. */
  private postInTurn(url: string, queue: Record<string, string>[]): void {
    const [next, ...rest] = queue;
    if (!next) return;
    this.timers.later(this.options.delayMs, () => {
      void this.postCallback(url, next).then(() => this.postInTurn(url, rest));
    });
  }

  private async postCallback(url: string, params: Record<string, string>): Promise<void> {
    const signature = TwilioSimulator.signature(this.options.authToken, url, params);
    let status: number | null = null;
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
        body: new URLSearchParams(params).toString(),
      });
      await response.body.dump();
      status = response.statusCode;
    } catch {
      // Herald unreachable: the callback is lost, as Twilio does not retry it.
    }
    this.callbacks.push({ url, params, signature, status });
    for (const check of [...this.waiting]) check();
  }
}

function send(res: ServerResponse, refusal: Refusal, headers: Record<string, string> = {}): void {
  const answer = errorAnswer(refusal);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  sendJson(res, answer);
}

function errorAnswer(refusal: Refusal): { status: number; body: Record<string, unknown> } {
  return {
    status: refusal.status,
    body: {
      code: refusal.code,
      message: refusal.message,
      more_info: `https://www.twilio.com/docs/errors/${refusal.code}`,
      status: refusal.status,
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A 34-character SID: its two-letter prefix and 32 hex digits. */
function twilioSid(prefix: 'SM' | 'CA'): string {
  return prefix + randomBytes(16).toString('hex');
}

/** A callback URL Twilio takes: absolute http(s), with a host name that has no underscore. */
function callbackUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.hostname.includes('_')
    );
  } catch {
    return false;
  }
}

/** Twilio's dates: RFC 2822 in GMT, "Tue, 31 Aug 2010 20:36:28 +0000". */
function rfc2822(at: Date): string {
  return at.toUTCString().replace('GMT', '+0000');
}

/** SMS segments of a body: 160 GSM-7 characters in one, 153 a part; 70 UCS-2 characters in one, 67 a part. */
function segments(body: string): number {
  const gsm = /^[\n\r\x20-\x7e]*$/.test(body);
  const length = gsm ? body.length : [...body].length;
  const [single, part] = gsm ? [160, 153] : [70, 67];
  return length <= single ? 1 : Math.ceil(length / part);
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Reads TwiML as an XML parser would: well-formed elements and attributes, entities only where escaped, the root
 * element `Response`. Returns the text of every <Say>, or what is wrong.
 */
export function parseTwiml(twiml: string): string[] | string {
  const text = twiml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const open: string[] = [];
  const said: string[] = [];
  let saying: string | undefined;
  let rootSeen = false;
  let i = 0;
  while (i < text.length) {
    if (text[i] === '<') {
      const end = text.indexOf('>', i);
      if (end < 0) return `unclosed tag at ${i}`;
      const tag = text.slice(i + 1, end);
      const closing = /^\/([A-Za-z][\w.-]*)\s*$/.exec(tag);
      if (closing) {
        if (open.pop() !== closing[1]) return `</${closing[1]}> closes nothing open`;
        if (closing[1] === 'Say' && saying !== undefined) {
          said.push(saying);
          saying = undefined;
        }
      } else {
        const element = /^([A-Za-z][\w.-]*)((?:\s+[A-Za-z][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)$/.exec(tag);
        if (!element) return `malformed tag <${tag}>`;
        for (const [, value] of element[2]!.matchAll(/=\s*(?:"([^"]*)"|'([^']*)')/g)) {
          if (typeof unescapeXml(value ?? '') !== 'string') return `bad entity in an attribute of <${element[1]}>`;
        }
        if (open.length === 0) {
          if (rootSeen) return 'more than one root element';
          if (element[1] !== 'Response') return 'the root element must be Response';
          rootSeen = true;
        }
        if (element[3] !== '/') {
          open.push(element[1]!);
          if (element[1] === 'Say') saying = '';
        }
      }
      i = end + 1;
      continue;
    }
    const next = text.indexOf('<', i);
    const chunk = text.slice(i, next < 0 ? text.length : next);
    if (open.length === 0 && chunk.trim() !== '') return 'text outside the root element';
    const read = unescapeXml(chunk);
    if (typeof read !== 'string') return read.problem;
    if (saying !== undefined) saying += read;
    i = next < 0 ? text.length : next;
  }
  if (open.length > 0) return `<${open.at(-1)}> is not closed`;
  if (!rootSeen) return 'no root element';
  return said;
}

function unescapeXml(chunk: string): string | { problem: string } {
  let out = '';
  let i = 0;
  while (i < chunk.length) {
    const amp = chunk.indexOf('&', i);
    if (amp < 0) return out + chunk.slice(i);
    out += chunk.slice(i, amp);
    const entity = /^&(#\d+|#x[0-9A-Fa-f]+|[A-Za-z]+);/.exec(chunk.slice(amp));
    if (!entity) return { problem: `a bare & at ${amp}` };
    const name = entity[1]!;
    if (name.startsWith('#x')) out += String.fromCodePoint(parseInt(name.slice(2), 16));
    else if (name.startsWith('#')) out += String.fromCodePoint(Number(name.slice(1)));
    else if (ENTITIES[name] !== undefined) out += ENTITIES[name];
    else return { problem: `unknown entity &${name};` };
    i = amp + entity[0].length;
  }
  return out;
}
