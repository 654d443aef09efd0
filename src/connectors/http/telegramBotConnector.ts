import type { Clock } from '../../util/clock.js';
import type { TelegramBotConnectorConfig } from '../connectorConfig.js';
import type { OutboundMessage, SubmitOutcome, TelegramChats } from '../connector.js';
import { isPlainObject } from '../../shared/text.js';
import { HttpConnector, type ProviderAnswer, type ProviderRequest, retryAfter } from './httpConnector.js';
import { DELIVERY_ERRORS } from '../../messages/index.js';
import { isCode } from './telegramApi.js';

/**
 * TELEGRAM texts over the Bot API (DESIGN 18): `POST {baseUrl}/bot<token>/sendMessage` to the chat the subscriber
 * linked to the account's bot (the sender name). The answer is the outcome, as the Bot API reports nothing later:
 * success is `delivered`; no link is `undelivered` 7601 at once, without a call (a cascade moves on); 403 (the
 * subscriber blocked the bot) is `undelivered` 7602 and the link goes, as does a chat Telegram no longer knows
 * (400 `chat not found`, 7601); 429 is tried again after `parameters.retry_after`.
 */
export class TelegramBotConnector extends HttpConnector {
  readonly type = 'telegram-bot';
  readonly channel = 'TELEGRAM' as const;

  constructor(
    private readonly config: TelegramBotConnectorConfig,
    private readonly chats: TelegramChats,
    clock?: Clock,
  ) {
    super(config.id, config.baseUrl, config, clock);
  }

  /** Texts only: codes go through the Gateway. */
  carries(content: unknown): boolean {
    return !isCode(content);
  }

  protected request(): ProviderRequest {
    throw new Error('telegram-bot resolves its requests (resolve)');
  }

  // Before the window: the chats of the texts handed over together are read in one statement (telegram/).
  protected override async resolve(message: OutboundMessage): Promise<ProviderRequest | SubmitOutcome> {
    const bot = message.senderName.toLowerCase();
    const token = await this.chats.botToken(message.accountId, bot);
    if (token === undefined) {
      // The operator took the token away (or the sender name) after the message was accepted.
      return {
        kind: 'permanent',
        errorCode: DELIVERY_ERRORS.telegramNoBot,
        reason: `${this.id}: bot ${bot} has no token`,
      };
    }
    const chat =
      (await this.chats.chatOf(message.accountId, bot, message.destination)) ??
      (this.config.simulatedLinks ? simulatedChat(message.destination) : undefined);
    if (chat === undefined) return undelivered(message, DELIVERY_ERRORS.telegramNotLinked);
    return {
      path: `/bot${token}/sendMessage`,
      headers: {},
      body: { chat_id: chat, text: textOf(message.content) },
    };
  }

  protected override classify(message: OutboundMessage, answer: ProviderAnswer): SubmitOutcome | undefined {
    const body = isPlainObject(answer.body) ? answer.body : {};
    if (answer.status === 200 && body.ok === true && isPlainObject(body.result)) {
      const chat = isPlainObject(body.result.chat) ? body.result.chat.id : undefined;
      return {
        kind: 'accepted',
        carrierIds: [`${String(chat)}:${String(body.result.message_id)}`],
        final: { state: 'delivered', errorCode: null },
      };
    }
    const description = typeof body.description === 'string' ? body.description : '';
    if (answer.status === 403) {
      void this.forget(message);
      return undelivered(message, DELIVERY_ERRORS.telegramBlocked);
    }
    if (answer.status === 400 && /chat not found|user not found/i.test(description)) {
      void this.forget(message);
      return undelivered(message, DELIVERY_ERRORS.telegramNotLinked);
    }
    if (answer.status === 429) {
      const parameters = isPlainObject(body.parameters) ? body.parameters : {};
      const seconds = typeof parameters.retry_after === 'number' ? String(parameters.retry_after) : undefined;
      return {
        kind: 'transient',
        retryAfterMs: retryAfter(seconds ?? answer.headers['retry-after']),
        reason: `${this.id}: ${description || 'Too Many Requests'}`,
        errorCode: 429,
      };
    }
    return undefined;
  }

  protected carrierId(): string | undefined {
    return undefined;
  }

  protected errorCode(body: unknown): number | undefined {
    return isPlainObject(body) && typeof body.error_code === 'number' ? body.error_code : undefined;
  }

  private async forget(message: OutboundMessage): Promise<void> {
    try {
      await this.chats.unlink(message.accountId, message.senderName.toLowerCase(), message.destination);
    } catch {
      // The link stays; the next text to the number meets the same answer and tries again.
    }
  }
}

/** A submission whose outcome is known at once: recorded as sent, then undelivered with the code. */
function undelivered(message: OutboundMessage, errorCode: number): SubmitOutcome {
  return { kind: 'accepted', carrierIds: [`none:${message.id}`], final: { state: 'undelivered', errorCode } };
}

/** The text of a TELEGRAM text content: a string, `{text}` or `{contentType: "text", text}`. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return isPlainObject(content) && typeof content.text === 'string' ? content.text : '';
}

/** The embedded simulator's chat of a number (its user id: 10^15 + the number; simulators/telegramBotApi.ts). */
function simulatedChat(phone: string): string {
  return String(1e15 + Number(phone));
}
