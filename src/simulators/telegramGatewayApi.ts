import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { type ApiAnswer, postJson } from './simulatorServers.js';
import type { Timers } from './timers.js';

/**
 * The simulated Gateway API (https://core.telegram.org/gateway/api), served by TelegramSimulator at
 * `/gateway/<method>`. Answers `{ok: true, result}` or `{ok: false, error}`. The page names one error,
 * ACCESS_TOKEN_INVALID, and no HTTP status for any: the simulator answers it 401 and its other errors 400, under
 * names of its own (a client reads `ok` and `error`, whatever the status):
 * - {@link CANNOT_RECEIVE}: the number cannot receive ("an appropriate error will be returned"), last digit 7;
 * - PHONE_NUMBER_INVALID, REQUEST_ID_INVALID (unknown, another number's, or already sent with), CODE_INVALID,
 *   CODE_LENGTH_INVALID, TTL_INVALID, CALLBACK_URL_INVALID, PAYLOAD_INVALID, METHOD_NOT_FOUND.
 *
 * A sent message's DeliveryStatus moves, one step each `delayMs` on the clock, by the number's last digit (DESIGN 18):
 * 0-5 sent, delivered, read; 6 sent, delivered (never read); 8 sent, revoked; 9 the same steps as 0-5 but no report
 * is ever posted. A message not delivered within its `ttl` becomes `expired` and its fee is refunded (`is_refunded`);
 * revokeVerificationMessage revokes one not yet delivered (revoked codes are not refunded, says the tutorial). Each
 * step is reported to `callback_url`, signed as {@link gatewayReportSignature} says, and posted again while the
 * receiver answers other than 200, at most 10 times more ("Report delivery").
 */

export const CANNOT_RECEIVE = 'PHONE_NUMBER_NOT_AVAILABLE';
/** "The service will retry sending the same report up to 10 times with increasing delays between attempts." */
const REPORT_RETRIES = 10;
const E164 = /^\+?[1-9]\d{6,14}$/;
/** sendVerificationMessage's ttl bounds since February 26, 2025. */
const TTL_MIN = 30;
const TTL_MAX = 3600;
/** code_length when neither code nor code_length is given: the page names no default. */
const CODE_LENGTH = 6;

export type DeliveryState = 'sent' | 'delivered' | 'read' | 'expired' | 'revoked';

/** One verification request, as the simulator keeps it. */
export interface GatewayRequest {
  readonly requestId: string;
  readonly phoneNumber: string;
  readonly cost: number;
  refunded: boolean;
  /** sendVerificationMessage was called with this request (once only for a checkSendAbility request). */
  sent: boolean;
  code: string | undefined;
  callbackUrl: string | undefined;
  payload: string | undefined;
  delivery: { status: DeliveryState; updated_at: number } | undefined;
  verification: { status: string; updated_at: number; code_entered?: string } | undefined;
}

/** One POST of a report to a callback_url, with the status it was answered (null when no answer came). */
export interface GatewayReport {
  readonly url: string;
  readonly body: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly attempt: number;
  readonly status: number | null;
}

/**
 * The report signature of "Checking report integrity": the hex HMAC-SHA-256 of the data-check-string
 * `timestamp + "\n" + body` (the X-Request-Timestamp header's value and the raw POST body) with the key SHA256(api
 * token), the raw 32-byte digest.
 */
export function gatewayReportSignature(apiToken: string, timestamp: string, body: string): string {
  const key = createHash('sha256').update(apiToken).digest();
  return createHmac('sha256', key).update(`${timestamp}\n${body}`).digest('hex');
}

/** Whether `signature` (X-Request-Signature) signs this timestamp and body with this token (constant-time). */
export function gatewayReportSignatureValid(
  apiToken: string,
  timestamp: string,
  body: string,
  signature: string,
): boolean {
  const expected = Buffer.from(gatewayReportSignature(apiToken, timestamp, body), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function failure(error: string, status = 400): ApiAnswer {
  return { status, body: { ok: false, error } };
}

const stringParam = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

export interface GatewayOptions {
  readonly token: string;
  readonly balance: number;
  readonly price: number;
  readonly delayMs: number;
  readonly timers: Timers;
}

export class TelegramGatewayApi {
  readonly reports: GatewayReport[] = [];
  private readonly requests = new Map<string, GatewayRequest>();
  /** Credits left; kept in millionths so that repeated charges of 0.01 add up exactly. */
  private micros: number;

  constructor(private readonly options: GatewayOptions) {
    this.micros = Math.round(options.balance * 1e6);
  }

  get balance(): number {
    return this.micros / 1e6;
  }

  /** A request by its id, for tests (the generated code, the state). */
  request(requestId: string): GatewayRequest | undefined {
    return this.requests.get(requestId);
  }

  /** One Gateway API call: the method of the path, the parameters, the Authorization header. */
  call(method: string, params: Record<string, unknown>, authorization: string | undefined): ApiAnswer {
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : stringParam(params.access_token);
    if (token !== this.options.token) return failure('ACCESS_TOKEN_INVALID', 401);
    switch (method.toLowerCase()) {
      case 'checksendability':
        return this.checkSendAbility(params);
      case 'sendverificationmessage':
        return this.sendVerificationMessage(params);
      case 'checkverificationstatus':
        return this.checkVerificationStatus(params);
      case 'revokeverificationmessage':
        return this.revokeVerificationMessage(params);
      default:
        return failure('METHOD_NOT_FOUND', 404);
    }
  }

  private checkSendAbility(params: Record<string, unknown>): ApiAnswer {
    const phone = stringParam(params.phone_number);
    if (phone === undefined || !E164.test(phone)) return failure('PHONE_NUMBER_INVALID');
    if (phone.endsWith('7')) return failure(CANNOT_RECEIVE);
    return this.charged(this.newRequest(phone));
  }

  private sendVerificationMessage(params: Record<string, unknown>): ApiAnswer {
    const phone = stringParam(params.phone_number);
    if (phone === undefined || !E164.test(phone)) return failure('PHONE_NUMBER_INVALID');
    const code = stringParam(params.code);
    if (code !== undefined && !/^\d{4,8}$/.test(code)) return failure('CODE_INVALID');
    const codeLength = params.code_length === undefined ? CODE_LENGTH : Number(params.code_length);
    if (!Number.isInteger(codeLength) || codeLength < 4 || codeLength > 8) return failure('CODE_LENGTH_INVALID');
    const ttl = params.ttl === undefined ? undefined : Number(params.ttl);
    if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < TTL_MIN || ttl > TTL_MAX)) return failure('TTL_INVALID');
    const callbackUrl = stringParam(params.callback_url);
    if (callbackUrl !== undefined && (Buffer.byteLength(callbackUrl) > 256 || !URL.canParse(callbackUrl)))
      return failure('CALLBACK_URL_INVALID');
    const payload = stringParam(params.payload);
    if (payload !== undefined && Buffer.byteLength(payload) > 128) return failure('PAYLOAD_INVALID');

    const requestId = stringParam(params.request_id);
    let found: GatewayRequest | undefined;
    if (requestId !== undefined) {
      found = this.requests.get(requestId);
      if (!found || found.sent || found.phoneNumber !== phone) return failure('REQUEST_ID_INVALID');
    } else if (phone.endsWith('7')) {
      return failure(CANNOT_RECEIVE);
    }
    const target = found ?? this.newRequest(phone);
    target.sent = true;
    target.code = code ?? Array.from({ length: codeLength }, () => randomInt(10)).join('');
    target.callbackUrl = callbackUrl || undefined;
    target.payload = payload;
    this.schedule(target, ttl);
    // A checkSendAbility request was charged then: this call is free, and "remaining_balance" is "returned only in
    // response to a request that incurs a charge".
    return found ? { status: 200, body: { ok: true, result: this.requestStatus(found) } } : this.charged(target);
  }

  private checkVerificationStatus(params: Record<string, unknown>): ApiAnswer {
    const found = this.requests.get(stringParam(params.request_id) ?? '');
    if (!found) return failure('REQUEST_ID_INVALID');
    const code = stringParam(params.code);
    const now = this.unixNow();
    if (found.delivery?.status === 'expired') {
      found.verification = { status: 'expired', updated_at: now };
    } else if (code !== undefined) {
      found.verification = {
        status: code === found.code ? 'code_valid' : 'code_invalid',
        updated_at: now,
        code_entered: code,
      };
    }
    return { status: 200, body: { ok: true, result: this.requestStatus(found) } };
  }

  private revokeVerificationMessage(params: Record<string, unknown>): ApiAnswer {
    const found = this.requests.get(stringParam(params.request_id) ?? '');
    if (!found) return failure('REQUEST_ID_INVALID');
    // "Returns True if the revocation request was received": one already delivered or read stays.
    if (found.sent) this.step(found, 'revoked');
    return { status: 200, body: { ok: true, result: true } };
  }

  private newRequest(phoneNumber: string): GatewayRequest {
    const created: GatewayRequest = {
      requestId: randomUUID().replaceAll('-', ''),
      phoneNumber,
      cost: this.options.price,
      refunded: false,
      sent: false,
      code: undefined,
      callbackUrl: undefined,
      payload: undefined,
      delivery: undefined,
      verification: undefined,
    };
    this.requests.set(created.requestId, created);
    return created;
  }

  /** Charges a new request's price and answers its status with the balance left. */
  private charged(charged: GatewayRequest): ApiAnswer {
    this.micros -= Math.round(charged.cost * 1e6);
    return {
      status: 200,
      body: { ok: true, result: { ...this.requestStatus(charged), remaining_balance: this.balance } },
    };
  }

  /** The RequestStatus object: optional fields only when they apply. */
  private requestStatus(of: GatewayRequest): Record<string, unknown> {
    return {
      request_id: of.requestId,
      phone_number: of.phoneNumber,
      request_cost: of.cost,
      ...(of.refunded ? { is_refunded: true } : {}),
      ...(of.delivery ? { delivery_status: of.delivery } : {}),
      ...(of.verification ? { verification_status: of.verification } : {}),
      ...(of.payload !== undefined ? { payload: of.payload } : {}),
    };
  }

  private schedule(sent: GatewayRequest, ttl: number | undefined): void {
    const digit = sent.phoneNumber.at(-1)!;
    const steps: DeliveryState[] =
      digit === '8' ? ['sent', 'revoked'] : digit === '6' ? ['sent', 'delivered'] : ['sent', 'delivered', 'read'];
    steps.forEach((state, i) =>
      this.options.timers.later(this.options.delayMs * (i + 1), () => this.step(sent, state)),
    );
    if (ttl !== undefined) this.options.timers.later(ttl * 1000, () => this.step(sent, 'expired'));
  }

  /** Moves a message to `next` if it may go there from where it is, and reports the change. */
  private step(of: GatewayRequest, next: DeliveryState): void {
    const current = of.delivery?.status;
    const allowed =
      next === 'sent'
        ? current === undefined
        : next === 'delivered' || next === 'expired' || next === 'revoked'
          ? current === undefined || current === 'sent'
          : current === 'delivered';
    if (!allowed) return;
    of.delivery = { status: next, updated_at: this.unixNow() };
    if (next === 'expired') {
      of.refunded = true;
      this.micros += Math.round(of.cost * 1e6);
    }
    if (of.callbackUrl && !of.phoneNumber.endsWith('9')) {
      void this.postReport(of.callbackUrl, JSON.stringify(this.requestStatus(of)), 1);
    }
  }

  private async postReport(url: string, body: string, attempt: number): Promise<void> {
    const timestamp = String(this.unixNow());
    const signature = gatewayReportSignature(this.options.token, timestamp, body);
    const headers = { 'x-request-timestamp': timestamp, 'x-request-signature': signature };
    const status = await postJson(url, headers, body);
    this.reports.push({ url, body, timestamp, signature, attempt, status });
    if (status !== 200 && attempt <= REPORT_RETRIES) {
      this.options.timers.later(1000 * attempt, () => void this.postReport(url, body, attempt + 1));
    }
  }

  private unixNow(): number {
    return Math.floor(this.options.timers.clock.nowMs() / 1000);
  }
}
