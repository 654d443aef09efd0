import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { outcomeOf } from '../../../src/simulators/outcomes.js';
import { closeServer, jsonServer, listenOn, postJson, sendJson } from '../../../src/simulators/simulatorServers.js';
import { Timers } from '../../../src/simulators/timers.js';
import { isPlainObject } from '../../../src/shared/text.js';
import type { Clock } from '../../../src/util/clock.js';

/*
 * Rapporto's REST API v6.0 for VK and VIBER messages, as profiles/research/vk-ok-viber.md section 2 reads it from
 * Rapporto's published docs (rest_auth, rest_vk, rest_viber, rest_status): one message per JSON POST, login and
 * password in the body, `{mtNum, id}` on success, `{error: {code, description}, extendedDescription}` with the
 * documented HTTP status otherwise, and one delivery report per POST to the message's notifyUrl, unsigned.
 */

export type RapportoType = 'VK' | 'VIBER';

/** Rapporto's send error codes with their HTTP statuses and descriptions (identical on the VK and VIBER pages). */
export const RAPPORTO_ERRORS = {
  1: [503, 'Service is unavailable'],
  2: [403, 'Invalid IP-address'],
  3: [429, 'Too many connections'],
  4: [400, 'Invalid request'],
  5: [401, 'Invalid login'],
  6: [401, 'Invalid password'],
  7: [400, 'serviceNumber is not defined'],
  8: [406, 'destAddr is not correct'],
  9: [406, 'Message type is not correct'],
  10: [409, 'Prohibited sending duplicates'],
  11: [406, 'Invalid TTL'],
  100: [500, '100'],
} as const satisfies Record<number, readonly [number, string]>;
export type RapportoErrorCode = keyof typeof RAPPORTO_ERRORS;

/** Delivery report statuses: 0 SEND (final status unknown yet), 2 DELIVERED, 5 UNDELIVERED, 9 READ. */
export const RAPPORTO_STATUS = { send: 0, delivered: 2, undelivered: 5, read: 9 } as const;

/** The reason an undelivered report gives, from the docs' tables: VK 11 unrouted, VIBER 2 absent subscriber. */
export const RAPPORTO_UNDELIVERED_REASON: Readonly<Record<RapportoType, string>> = { VK: '11', VIBER: '2' };

/** The documented bounds the simulator enforces. */
const TTL_SECONDS: Readonly<Record<RapportoType, readonly [number, number]>> = {
  VK: [60, 86_400],
  VIBER: [30, 86_400],
};
const TTL_UNITS: Readonly<Record<string, number>> = { SECONDS: 1, MINUTES: 60, HOURS: 3600 };
const TEXT_MAX: Readonly<Record<RapportoType, number>> = { VK: 2000, VIBER: 1000 };
const CAPTION_MAX = 30;
const URL_MAX = 2048;
const ACTION_SCHEMES = ['http://', 'https://', 'viber://', 'mailto:', 'tel:'];
/** Rapporto does not document retrying a report; the simulator tries a few times, as providers do. */
const REPORT_ATTEMPTS = 5;

export interface RapportoSimulatorOptions {
  readonly login: string;
  readonly password: string;
  /** The pause before each delivery report. */
  readonly delayMs: number;
  /** The clock of the pauses (a test's, which can jump over them). */
  readonly clock?: Clock;
  /** The report URL set up at connection, for a request without notifyUrl. */
  readonly notifyUrl?: string;
  /** The message types the partner's account may send. */
  readonly types?: readonly RapportoType[];
  /** The partner's allow-listed addresses. */
  readonly allowedIps?: readonly string[];
}

/** One request the simulator took, with its answer. */
export interface RapportoRequest {
  readonly body: unknown;
  readonly status: number;
  readonly answer: unknown;
}

/** One delivery report the simulator posted, with the status it was answered (null: no answer). */
export interface RapportoReport {
  readonly url: string;
  readonly body: Record<string, unknown>;
  readonly answered: number | null;
}

/** A message Rapporto took. */
interface Taken {
  readonly type: RapportoType;
  readonly id: string | undefined;
  readonly mtNum: string;
  readonly destAddr: string;
  readonly serviceNumber: string;
  readonly text: string | undefined;
  readonly notifyUrl: string | undefined;
  readonly registeredDelivery: number;
  readonly submitDate: Date;
}

type Refusal = { readonly code: RapportoErrorCode; readonly extended?: string };

/**
 * Rapporto's REST v6 on a real port: every request checked field by field and refused as the docs say (code and
 * HTTP status), a taken one answered `{mtNum, id}` and reported by the destination's last digit (outcomes.ts:
 * 0-5 delivered then read, 6 delivered, 7 undelivered with the channel's reason, 8 `destAddr is not correct`,
 * 9 SEND and nothing more). A repeated `id` is answered the first answer and sent once (the docs' duplicate
 * control; its code 10 is left to {@link refuse}). The endpoint's path stands for the URI a partner is given.
 */
export class RapportoSimulator {
  readonly requests: RapportoRequest[] = [];
  readonly reports: RapportoReport[] = [];
  static readonly PATH = '/partner/send';
  private server: Server | undefined;
  private readonly timers: Timers;
  private readonly byId = new Map<string, { mtNum: string; id?: string }>();
  /** Refusals a test has asked for, by destination, answered before anything else is checked. */
  private readonly forced = new Map<string, RapportoErrorCode[]>();
  private counter = 0;
  private port = 0;

  constructor(private readonly options: RapportoSimulatorOptions) {
    this.timers = new Timers(options.clock);
  }

  /** The URI a partner is given: the connector's baseUrl. */
  get url(): string {
    return `http://127.0.0.1:${this.port}${RapportoSimulator.PATH}`;
  }

  async start(): Promise<this> {
    this.server = jsonServer(
      (req, res) => this.handle(req, res),
      () => ({ status: 500, body: { error: { code: 100, description: '100' } } }),
    );
    this.port = await listenOn(this.server);
    return this;
  }

  async stop(): Promise<void> {
    this.timers.clear();
    await closeServer(this.server);
  }

  /** The next `times` requests for `destAddr` (digits) are refused with `code`, whatever they hold. */
  refuse(destAddr: string, code: RapportoErrorCode, times = 1): void {
    this.forced.set(destAddr, [...(this.forced.get(destAddr) ?? []), ...Array<RapportoErrorCode>(times).fill(code)]);
  }

  /** The requests for a destination (digits), in order. */
  requestsTo(destAddr: string): RapportoRequest[] {
    return this.requests.filter((r) => isPlainObject(r.body) && normalised(digitsOf(r.body.destAddr)) === destAddr);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const answer = (status: number, payload: unknown) => {
      this.requests.push({ body, status, answer: payload });
      sendJson(res, { status, body: payload });
    };
    const refuse = ({ code, extended }: Refusal) => {
      const [status, description] = RAPPORTO_ERRORS[code];
      answer(status, { error: { code, description }, ...(extended ? { extendedDescription: extended } : {}) });
    };
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== RapportoSimulator.PATH)
      return refuse({ code: 4, extended: `no method ${req.method} ${req.url}` });
    const ip = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (!(this.options.allowedIps ?? ['127.0.0.1']).includes(ip)) return refuse({ code: 2 });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return refuse({ code: 4, extended: 'Content-Type must be application/json' });
    if (!isPlainObject(body)) return refuse({ code: 4, extended: 'the body is not a JSON object' });
    if (body.login !== this.options.login) return refuse({ code: 5 });
    if (body.password !== this.options.password) return refuse({ code: 6 });
    const forced = this.forced.get(normalised(digitsOf(body.destAddr)))?.shift();
    if (forced !== undefined) return refuse({ code: forced });

    const checked = this.check(body);
    if ('code' in checked) return refuse(checked);
    const earlier = checked.id === undefined ? undefined : this.byId.get(checked.id);
    if (earlier) return answer(200, earlier);
    if (outcomeOf(checked.destAddr) === 'rejected') return refuse({ code: 8, extended: 'no such subscriber' });
    const taken: Taken = { ...checked, mtNum: String(7_390_000_000 + ++this.counter), submitDate: new Date() };
    const payload = { mtNum: taken.mtNum, ...(taken.id === undefined ? {} : { id: taken.id }) };
    if (taken.id !== undefined) this.byId.set(taken.id, payload);
    answer(200, payload);
    this.scheduleReports(taken);
  }

  /** A request's fields as the docs require them (rest_vk, rest_viber parameter tables), or the refusal. */
  private check(body: Record<string, unknown>): Omit<Taken, 'mtNum' | 'submitDate'> | Refusal {
    const { id, destAddr, message, notifyUrl, registeredDelivery = 1 } = body;
    if (id !== undefined && typeof id !== 'string') return { code: 4, extended: 'id is not a string' };
    const digits = digitsOf(destAddr);
    if (typeof destAddr !== 'string' || !/^\+?[\d\s()-]+$/.test(destAddr) || !/^\d{10,15}$/.test(digits))
      return { code: 8 };
    if (!isPlainObject(message) || !isPlainObject(message.data))
      return { code: 4, extended: 'message or message.data is absent' };
    const type = message.type;
    if ((type !== 'VK' && type !== 'VIBER') || !(this.options.types ?? ['VK', 'VIBER']).includes(type))
      return { code: 9 };
    const data = message.data;
    if (typeof data.serviceNumber !== 'string' || data.serviceNumber === '') return { code: 7 };
    const ttl = ttlProblem(type, data.ttl, data.ttlUnit);
    if (ttl) return ttl;
    if (notifyUrl !== undefined && (typeof notifyUrl !== 'string' || notifyUrl === '' || notifyUrl.length > URL_MAX))
      return { code: 4, extended: `notifyUrl is empty or longer than ${URL_MAX} characters` };
    if (![0, 1, 2].includes(registeredDelivery as number))
      return { code: 4, extended: 'registeredDelivery is not 0, 1 or 2' };
    let text: string | undefined;
    if (type === 'VK') {
      if (typeof data.text !== 'string' || data.text === '' || data.text.length > TEXT_MAX.VK)
        return { code: 4, extended: `text is absent or longer than ${TEXT_MAX.VK} characters` };
      text = data.text;
    } else {
      const problem = viberContentProblem(data.instantContent);
      if (problem) return { code: 4, extended: problem };
      text = (data.instantContent as { data: { text?: string } }).data.text;
    }
    return {
      type,
      id,
      destAddr: normalised(digits),
      serviceNumber: data.serviceNumber,
      text,
      notifyUrl: notifyUrl as string | undefined,
      registeredDelivery: registeredDelivery as number,
    };
  }

  /** The reports of a taken message, each `delayMs` after the one before was answered (READ follows DELIVERED). */
  private scheduleReports(taken: Taken): void {
    const { send, delivered, undelivered, read } = RAPPORTO_STATUS;
    const outcome = outcomeOf(taken.destAddr);
    const planned: (readonly [number, string])[] =
      outcome === 'delivered-read'
        ? [
            [delivered, '0'],
            [read, '0'],
          ]
        : outcome === 'delivered'
          ? [[delivered, '0']]
          : outcome === 'undelivered'
            ? [[undelivered, RAPPORTO_UNDELIVERED_REASON[taken.type]]]
            : [[send, '0']];
    // registeredDelivery: 0 no reports, 1 all of them, 2 only "not delivered".
    const wanted = planned.filter(
      ([status]) => taken.registeredDelivery === 1 || (taken.registeredDelivery === 2 && status === undelivered),
    );
    const next = (i: number): void => {
      const report = wanted[i];
      if (!report) return;
      this.timers.later(this.options.delayMs, () => void this.post(taken, ...report).then(() => next(i + 1)));
    };
    next(0);
  }

  /** One report, in the shape of rest_status.rst's example, to the message's notifyUrl or the one set up. */
  private async post(taken: Taken, status: number, errorCode: string, attempt = 1): Promise<void> {
    const url = taken.notifyUrl ?? this.options.notifyUrl;
    if (!url) return;
    const now = this.timers.clock.now();
    const body = {
      ...(taken.id === undefined ? {} : { id: taken.id }),
      mtNum: taken.mtNum,
      status,
      type: taken.type,
      doneDate: status === RAPPORTO_STATUS.delivered || status === RAPPORTO_STATUS.read ? moscowTime(now) : '',
      submitDate: moscowTime(taken.submitDate),
      sourceAddr: taken.serviceNumber,
      destAddr: taken.destAddr,
      ...(taken.text === undefined ? {} : { text: taken.text }),
      errorCode,
    };
    const answered = await postJson(url, {}, JSON.stringify(body));
    this.reports.push({ url, body, answered });
    if (answered !== null && answered < 300) return;
    if (attempt >= REPORT_ATTEMPTS) return;
    await new Promise<void>((resolve) => this.timers.later(1000 * attempt, resolve));
    await this.post(taken, status, errorCode, attempt + 1);
  }
}

/** ttl: 0 or absent takes the account's default; otherwise an integer in the type's range once its unit applies. */
function ttlProblem(type: RapportoType, ttl: unknown, unit: unknown = 'MINUTES'): Refusal | undefined {
  if (ttl === undefined || ttl === 0) return undefined;
  if (typeof unit !== 'string' || !(unit in TTL_UNITS))
    return { code: 4, extended: 'ttlUnit is not SECONDS, MINUTES or HOURS' };
  const [min, max] = TTL_SECONDS[type];
  if (!Number.isInteger(ttl)) return { code: 11 };
  const seconds = (ttl as number) * TTL_UNITS[unit]!;
  return seconds < min || seconds > max
    ? { code: 11, extended: `ttl is ${seconds} s, not ${min} to ${max}` }
    : undefined;
}

/**
 * instantContent by its type, as rest_viber.rst allows them: TEXT text only; IMAGE_URL imageURL only; BUTTON text,
 * caption (<= 30) and action (<= 2048, http://, https://, viber://, mailto: or tel:), with an imageURL or not.
 */
function viberContentProblem(content: unknown): string | undefined {
  if (!isPlainObject(content) || !isPlainObject(content.data)) return 'instantContent or its data is absent';
  const fields = content.data;
  for (const [name, value] of Object.entries(fields))
    if (!['text', 'imageURL', 'caption', 'action'].includes(name)) return `instantContent.data.${name} is unknown`;
    else if (typeof value !== 'string' || value === '') return `instantContent.data.${name} is not a non-empty string`;
  const { text, imageURL, caption, action } = fields as Record<string, string | undefined>;
  const has = Object.keys(fields).sort().join(',');
  if (text !== undefined && text.length > TEXT_MAX.VIBER) return `text is longer than ${TEXT_MAX.VIBER} characters`;
  if (imageURL !== undefined && imageURL.length > URL_MAX) return `imageURL is longer than ${URL_MAX} characters`;
  switch (content.type) {
    case 'TEXT':
      return has === 'text' ? undefined : 'TEXT carries text only';
    case 'IMAGE_URL':
      return has === 'imageURL' ? undefined : 'IMAGE_URL carries imageURL only';
    case 'BUTTON':
      if (has !== 'action,caption,text' && has !== 'action,caption,imageURL,text')
        return 'BUTTON carries text, caption and action, and an imageURL or not';
      if (caption!.length > CAPTION_MAX) return `Caption is absent or length longer ${CAPTION_MAX} characters`;
      if (action!.length > URL_MAX || !ACTION_SCHEMES.some((s) => action!.startsWith(s)))
        return `action is longer than ${URL_MAX} characters or not ${ACTION_SCHEMES.join(', ')}`;
      return undefined;
    default:
      return 'instantContent.type is not TEXT, IMAGE_URL or BUTTON';
  }
}

/** The digits of a destAddr as given (`+7 (916) 123-45-67`). */
function digitsOf(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\D/g, '') : '';
}

/** A Russian number written with the trunk prefix 8 (`8-210-123-45-67`) is 7...; the docs accept both. */
function normalised(digits: string): string {
  return digits.length === 11 && digits.startsWith('8') ? `7${digits.slice(1)}` : digits;
}

/** The reports' time format, yyyy-MM-ddTHH:mm:ss+hhmm, in Moscow time (UTC+3) as the docs' example. */
function moscowTime(at: Date): string {
  return `${new Date(at.getTime() + 3 * 3600_000).toISOString().slice(0, 19)}+0300`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
