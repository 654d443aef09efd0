import type { Clock } from '../../util/clock.js';
import type { TelegramGatewayConnectorConfig } from '../connectorConfig.js';
import type { OutboundMessage, SubmitOutcome } from '../connector.js';
import { isPlainObject } from '../../shared/text.js';
import { HttpConnector, type ProviderAnswer, type ProviderRequest } from './httpConnector.js';
import { DELIVERY_ERRORS } from '../../messages/index.js';
import { isCode } from './telegramApi.js';

/** sendVerificationMessage's ttl bounds (https://core.telegram.org/gateway/api). */
const TTL_MIN = 30;
const TTL_MAX = 3600;
/** The Gateway's error for a number that cannot receive a code. */
const CANNOT_RECEIVE = /PHONE_NUMBER_NOT_AVAILABLE|PHONE_NUMBER_INVALID|CANNOT_RECEIVE/;

/**
 * TELEGRAM codes over the Gateway API (DESIGN 18; https://core.telegram.org/gateway/api): `checkSendAbility` first
 * (a number that cannot receive ends `unsent` 7603, refunded), then `sendVerificationMessage` with its `request_id`,
 * the code, the ttl, `callback_url` and the message id as `payload`. The request id is the carrier id: signed
 * delivery reports come to `/webhooks/{connector id}` (connectors/webhookRoutes.ts).
 */
export class TelegramGatewayConnector extends HttpConnector {
  readonly type = 'telegram-gateway';
  readonly channel = 'TELEGRAM' as const;
  private publicUrl: string | undefined;

  constructor(
    private readonly config: TelegramGatewayConnectorConfig,
    clock?: Clock,
  ) {
    super(config.id, config.baseUrl, config, clock);
    this.publicUrl = config.publicUrl;
  }

  /** Codes only: texts go through the Bot API. */
  carries(content: unknown): boolean {
    return isCode(content);
  }

  /** Where reports go when the configuration names no public address (the embedded simulators'). */
  defaultPublicUrl(url: string): void {
    this.publicUrl ??= url;
  }

  protected request(): ProviderRequest {
    throw new Error('telegram-gateway prepares its requests (prepare)');
  }

  private get auth(): Record<string, string> {
    return { authorization: `Bearer ${this.config.token}` };
  }

  protected override async prepare(message: OutboundMessage): Promise<ProviderRequest | SubmitOutcome> {
    const phone = `+${message.destination}`;
    const check = await this.call({ path: '/checkSendAbility', headers: this.auth, body: { phone_number: phone } });
    const body = isPlainObject(check.body) ? check.body : {};
    const error = typeof body.error === 'string' ? body.error : undefined;
    if (body.ok !== true || !isPlainObject(body.result) || typeof body.result.request_id !== 'string') {
      if (error && CANNOT_RECEIVE.test(error)) {
        return { kind: 'permanent', errorCode: DELIVERY_ERRORS.telegramUnavailable, reason: `${this.id}: ${error}` };
      }
      // A refused token is the operator's to mend: the codes wait for it (until their deadline) rather than fail.
      const transient = check.status >= 500 || check.status === 429 || check.status === 401;
      const reason = `${this.id}: checkSendAbility HTTP ${check.status} ${error ?? check.text.slice(0, 200)}`;
      return transient
        ? { kind: 'transient', retryAfterMs: 5000, reason, errorCode: check.status }
        : { kind: 'permanent', errorCode: check.status, reason };
    }
    const code = isPlainObject(message.content) ? String(message.content.code) : '';
    return {
      path: '/sendVerificationMessage',
      headers: this.auth,
      body: {
        phone_number: phone,
        request_id: body.result.request_id,
        code,
        ttl: Math.min(TTL_MAX, Math.max(TTL_MIN, Math.floor(message.ttlSeconds))),
        payload: message.id,
        ...(this.publicUrl
          ? { callback_url: `${this.publicUrl.replace(/\/+$/, '')}/webhooks/${encodeURIComponent(this.id)}` }
          : {}),
      },
    };
  }

  protected override classify(_message: OutboundMessage, answer: ProviderAnswer): SubmitOutcome | undefined {
    const body = isPlainObject(answer.body) ? answer.body : {};
    if (answer.status === 200 && body.ok === true && isPlainObject(body.result)) {
      const id = body.result.request_id;
      return typeof id === 'string' ? { kind: 'accepted', carrierIds: [id] } : undefined;
    }
    if (typeof body.error === 'string' && CANNOT_RECEIVE.test(body.error)) {
      return { kind: 'permanent', errorCode: DELIVERY_ERRORS.telegramUnavailable, reason: `${this.id}: ${body.error}` };
    }
    return undefined;
  }

  protected carrierId(): string | undefined {
    return undefined;
  }

  protected errorCode(): number | undefined {
    return undefined;
  }
}
