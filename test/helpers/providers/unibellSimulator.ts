import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { outcomeOf } from '../../../src/simulators/outcomes.js';
import { closeServer, jsonServer, listenOn, sendJson } from '../../../src/simulators/simulatorServers.js';

/**
 * Unibell's FlashCall API as its documentation describes it (https://docs.unibell.tech/?page_id=3515, RU twin
 * https://docs.unibell.ru/?p=323; the reading is in profiles/research/flashcall-voicecode-sms.md):
 * `POST /apps/flash/calls/flash`, the key as `X-Authorization: AccessKey <key>` or the same in the query parameter
 * `X-Authorization`, a JSON body `{"number": "<e.164>", "code": <4-digit number>, "timeout": <ms>}`; answered
 * `{"requestId": <number>, "from": "<calling number>"}`, or `{"errorCode", "errorReason"}` with the HTTP status of
 * the documented error table.
 */
export const UNIBELL_PATH = '/apps/flash/calls/flash';

/** The documented error table: errorCode, its HTTP status and errorReason (codes after 11 were not seen). */
export const UNIBELL_ERRORS = {
  authenticationRequired: { errorCode: 1, status: 401, errorReason: 'Authentication required' },
  inactiveAccount: { errorCode: 2, status: 400, errorReason: 'Inactive account' },
  tooManyRequests: { errorCode: 4, status: 429, errorReason: 'Too many requests' },
  inactiveToken: { errorCode: 5, status: 401, errorReason: 'Inactive token' },
  insufficientFunds: { errorCode: 6, status: 403, errorReason: 'Insufficient funds' },
  invalidRequest: { errorCode: 10, status: 400, errorReason: 'Invalid request' },
  invalidNumber: { errorCode: 11, status: 400, errorReason: 'Invalid number' },
} as const;
export type UnibellError = keyof typeof UNIBELL_ERRORS;

/** A refusal the simulator can be told to give, whatever the request: the account's or the key's state, the rate. */
export type UnibellRefusal = Exclude<UnibellError, 'authenticationRequired' | 'invalidRequest' | 'invalidNumber'>;

/** One request the simulator took, with what it answered. */
export interface UnibellRequest {
  readonly method: string;
  readonly path: string;
  /** The key as it came: the X-Authorization header, else the query parameter. */
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly body: unknown;
  readonly status: number;
  readonly answer: unknown;
}

/** E.164 as Unibell writes it: the country code and number, digits only ("7XXXXXXXXXX"). */
const E164 = /^[1-9]\d{7,14}$/;
const CYRILLIC = /\p{Script=Cyrillic}/u;

/**
 * A real HTTP server (127.0.0.1, port 0) speaking Unibell's FlashCall API. Each request is checked field by field
 * as documented, and refused with the documented errorCode and HTTP status: no or another key 1 (401); a `number`
 * that is not an e.164 string, or has Cyrillic, 11 (400); a `code` that is not a 4-digit number, or a `timeout`
 * that is not a positive whole number of milliseconds, or a body that is not a JSON object, 10 (400). The documented
 * `code` is a JSON number of 4 digits, so a code with a leading zero, which has no such form, is refused too: what
 * the real provider does with one is not documented. By the destination's last digit (src/simulators/outcomes.ts),
 * 8 is refused as an invalid number (11); every other call is accepted, with a `from` ending in the code. Unibell
 * documents no status callback payload and no status query, so the simulator reports no status.
 */
export class UnibellSimulator {
  readonly requests: UnibellRequest[] = [];
  private server: Server | undefined;
  private readonly refusals: UnibellRefusal[] = [];
  private requestId = 410_000;
  port = 0;

  constructor(private accessKey: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next `count` requests with the right key are refused so, before their body is read. */
  refuseNext(refusal: UnibellRefusal, count = 1): void {
    for (let i = 0; i < count; i++) this.refusals.push(refusal);
  }

  /** The key the account has now: requests with the former one are refused 1 (401). */
  setAccessKey(key: string): void {
    this.accessKey = key;
  }

  /** The requests made to the number, in order. */
  requestsTo(number: string): UnibellRequest[] {
    return this.requests.filter((r) => (r.body as { number?: unknown } | undefined)?.number === number);
  }

  async start(): Promise<void> {
    this.server = jsonServer(
      (req, res) => this.handle(req, res),
      (error) => ({ status: 500, body: { errorCode: 10, errorReason: String(error) } }),
    );
    this.port = await listenOn(this.server);
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://unibell');
    const text = await readText(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const header = req.headers['x-authorization'];
    const authorization = typeof header === 'string' ? header : (url.searchParams.get('X-Authorization') ?? undefined);
    const answer = (status: number, json: unknown): void => {
      this.requests.push({
        method: req.method ?? '',
        path: url.pathname,
        authorization,
        contentType: req.headers['content-type'],
        body,
        status,
        answer: json,
      });
      sendJson(res, { status, body: json });
    };
    const refuse = (error: UnibellError): void => {
      const { status, errorCode, errorReason } = UNIBELL_ERRORS[error];
      answer(status, { errorCode, errorReason });
    };

    // The documentation names one method; any other path or verb is a malformed request.
    if (req.method !== 'POST' || url.pathname !== UNIBELL_PATH) return refuse('invalidRequest');
    if (authorization !== `AccessKey ${this.accessKey}`) return refuse('authenticationRequired');
    const refusal = this.refusals.shift();
    if (refusal) return refuse(refusal);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse('invalidRequest');
    const { number, code, timeout } = body as Record<string, unknown>;
    if (typeof number !== 'string' || CYRILLIC.test(number) || !E164.test(number)) return refuse('invalidNumber');
    if (typeof code !== 'number' || !Number.isInteger(code) || code < 1000 || code > 9999)
      return refuse('invalidRequest');
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) return refuse('invalidRequest');
    if (outcomeOf(number) === 'rejected') return refuse('invalidNumber');

    const requestId = ++this.requestId;
    // The calling number: a Moscow-like prefix, then the code as its last four digits.
    const from = `7495${String(requestId % 1000).padStart(3, '0')}${code}`;
    answer(200, { requestId, from });
  }
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
