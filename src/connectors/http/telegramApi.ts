import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { request } from 'undici';
import type { CarrierReceipt } from '../connector.js';
import { isPlainObject } from '../../shared/text.js';

const CALL_TIMEOUT_MS = 15_000;

/** A Bot API answer: `{ok: true, result}` or `{ok: false, error_code, description}`. */
export interface BotApiAnswer {
  readonly ok: boolean;
  /** Whether the Bot API answered at all (a refusal), or not (a network failure, a timeout, not JSON). */
  readonly reachable: boolean;
  readonly result?: unknown;
  readonly description?: string;
}

/**
 * One Bot API method call outside a connector's flow (registering a webhook, answering a subscriber): JSON
 * parameters, the answer's `ok`, `result` and `description`. A network failure is an answer with `ok: false`.
 */
export async function botApiCall(
  baseUrl: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
): Promise<BotApiAnswer> {
  try {
    const response = await request(`${baseUrl.replace(/\/+$/, '')}/bot${token}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
      headersTimeout: CALL_TIMEOUT_MS,
      bodyTimeout: CALL_TIMEOUT_MS,
    });
    const text = await response.body.text();
    const body: unknown = JSON.parse(text);
    if (!isPlainObject(body)) return { ok: false, reachable: false, description: `HTTP ${response.statusCode}` };
    return {
      ok: body.ok === true,
      reachable: true,
      result: body.result,
      description: typeof body.description === 'string' ? body.description : `HTTP ${response.statusCode}`,
    };
  } catch (error) {
    return { ok: false, reachable: false, description: (error as Error).message };
  }
}

/**
 * The `secret_token` of a bot's webhook: derived from its token (only Telegram and Herald know it), so that no
 * secret needs keeping, and a token attached anew gets a new secret. Hex: within setWebhook's [A-Za-z0-9_-]{1,256}.
 */
export function botWebhookSecret(token: string): string {
  return createHmac('sha256', token).update('herald webhook secret').digest('hex');
}

/** Whether an update's `X-Telegram-Bot-Api-Secret-Token` is the bot's secret, compared in constant time. */
export function botWebhookSecretValid(header: unknown, token: string): boolean {
  if (typeof header !== 'string') return false;
  const given = Buffer.from(header);
  const expected = Buffer.from(botWebhookSecret(token));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** How far a Gateway report's timestamp may be from Herald's clock: a report older than this is a replay. */
const REPORT_SKEW_SECONDS = 600;

/**
 * "Checking report integrity" (https://core.telegram.org/gateway/api): the report's X-Request-Signature is the hex
 * HMAC-SHA-256 of `X-Request-Timestamp + "\n" + raw body`, keyed with the SHA-256 of the Gateway token. The
 * timestamp must also be recent (the page: "to prevent replay attacks").
 */
export function gatewayReportValid(
  token: string,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
  nowMs: number,
): boolean {
  const timestamp = headers['x-request-timestamp'];
  const signature = headers['x-request-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > REPORT_SKEW_SECONDS) return false;
  const key = createHash('sha256').update(token).digest();
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${timestamp}\n`), raw]))
    .digest('hex');
  const given = Buffer.from(signature.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, Buffer.from(expected));
}

/** Gateway delivery states and the receipt each becomes; `sent` is no news (the message is sent already). */
const GATEWAY_STATES = {
  delivered: 'delivered',
  read: 'read',
  expired: 'undelivered',
  revoked: 'unsent',
} as const;

/** A Gateway report (a RequestStatus object) as a receipt of its request, and whether Telegram refunded it. */
export function parseGatewayReport(
  connectorId: string,
  payload: unknown,
  at: Date,
): { receipt: CarrierReceipt | undefined; requestId: string | undefined; refunded: boolean } {
  if (!isPlainObject(payload) || typeof payload.request_id !== 'string')
    return { receipt: undefined, requestId: undefined, refunded: false };
  const status = isPlainObject(payload.delivery_status) ? payload.delivery_status.status : undefined;
  const state = typeof status === 'string' ? GATEWAY_STATES[status as keyof typeof GATEWAY_STATES] : undefined;
  return {
    receipt: state && { connectorId, carrierId: payload.request_id, state, at, errorCode: null },
    requestId: payload.request_id,
    refunded: payload.is_refunded === true,
  };
}

/** A TELEGRAM content that is a code (`{contentType: "code"}`): the Gateway API's; a text is the Bot API's. */
export function isCode(content: unknown): boolean {
  return isPlainObject(content) && content.contentType === 'code';
}
