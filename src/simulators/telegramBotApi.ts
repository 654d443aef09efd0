import { createHash } from 'node:crypto';
import { isPlainObject } from '../shared/text.js';
import { type ApiAnswer, postJsonAnswer } from './simulatorServers.js';
import type { Timers } from './timers.js';

/**
 * The simulated Bot API (https://core.telegram.org/bots/api), served by TelegramSimulator at `/bot<token>/<method>`.
 * Answers `{ok: true, result}` or `{ok: false, error_code, description, parameters?}` with error_code as the HTTP
 * status ("Making requests"). The descriptions are the texts the real Bot API sends (`Unauthorized`, `Bad Request:
 * chat not found`, `Forbidden: bot was blocked by the user`, `Too Many Requests: retry after N`): the page leaves
 * them undocumented.
 *
 * Subscribers are phone numbers; each has one private chat with every bot, whose id is its user id,
 * {@link telegramUserId}. Outcomes of sendMessage by the last digit (DESIGN 18): 7 has no Telegram (`chat not
 * found`), 8 blocked the bot (403), others deliver. {@link TelegramBotApi.throttle} makes a bot's next sendMessage
 * calls answer 429.
 */

/** What a subscriber sends a bot: `/start`, a text, or a contact (their own, or the number given's). */
export type SubscriberMessage =
  | { readonly kind: 'start' }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'contact'; readonly phoneNumber?: string };

/** A sendMessage the simulator answered. */
export interface BotSentMessage {
  readonly botUsername: string;
  readonly chatId: string;
  readonly text: string;
  readonly status: number;
}

/**
 * One POST of an Update to a bot's webhook, with the status it was answered (null when no answer came) and the
 * method call the answer made, if any, with the simulator's answer to it.
 */
export interface UpdateDelivery {
  readonly botUsername: string;
  readonly update: Record<string, unknown>;
  readonly secretToken: string | undefined;
  readonly attempt: number;
  readonly status: number | null;
  readonly reply?: { readonly method: string; readonly params: Record<string, unknown>; readonly answer: ApiAnswer };
}

interface Bot {
  readonly token: string;
  readonly username: string;
  readonly id: number;
  webhook: { url: string; secretToken: string | undefined } | undefined;
  lastUpdateId: number;
  lastMessageId: number;
  throttled: { count: number; retryAfter: number };
}

/** Telegram retries an Update not answered 2xx "a reasonable number of attempts": five, a second more apart each. */
const UPDATE_ATTEMPTS = 5;
const TEXT_LENGTH = 4096;
/** setWebhook's secret_token: "1-256 characters. Only characters A-Z, a-z, 0-9, _ and - are allowed." */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
/**
 * User ids sit above 10^15, so that the id of a number of up to 15 digits (E.164) is 10^15 + the number, below the
 * 2^53 the page promises identifiers stay under, and the simulator finds the number back from a chat id.
 */
const USER_ID_BASE = 1e15;
const SUBSCRIBER_NAME = 'Subscriber';

/** The user id (and private chat id) of a subscriber's number, `+` and separators ignored. */
export function telegramUserId(phoneNumber: string): number {
  return USER_ID_BASE + Number(phoneNumber.replace(/\D/g, ''));
}

/** The number whose user id this chat id is, or undefined for a chat that is no subscriber's. */
function numberOfChat(chatId: unknown): string | undefined {
  const id =
    typeof chatId === 'number' ? chatId : typeof chatId === 'string' && /^\d+$/.test(chatId) ? Number(chatId) : NaN;
  if (!Number.isSafeInteger(id) || id <= USER_ID_BASE || id >= 2 * USER_ID_BASE) return undefined;
  return String(id - USER_ID_BASE);
}

function failure(status: number, description: string, retryAfter?: number): ApiAnswer {
  const parameters = retryAfter === undefined ? {} : { parameters: { retry_after: retryAfter } };
  return { status, body: { ok: false, error_code: status, description, ...parameters } };
}

function success(result: unknown, description?: string): ApiAnswer {
  return { status: 200, body: { ok: true, result, ...(description ? { description } : {}) } };
}

export class TelegramBotApi {
  readonly sent: BotSentMessage[] = [];
  private recording = true;
  readonly deliveries: UpdateDelivery[] = [];
  private readonly byToken = new Map<string, Bot>();
  private readonly byUsername = new Map<string, Bot>();

  /** Subscribers (numbers) who shared their own contact with a bot, by bot username in lower case. */
  private readonly shared = new Map<string, Set<string>>();

  constructor(
    bots: Readonly<Record<string, string>>,
    private readonly timers: Timers,
  ) {
    for (const [token, username] of Object.entries(bots)) this.addBot(token, username);
  }

  /** A bot the Bot API knows from now on (`token` is `<bot id>:<secret>`; `username` without `@`). */
  addBot(token: string, username: string): void {
    const prefix = token.split(':')[0]!;
    const id = /^\d{1,15}$/.test(prefix) ? Number(prefix) : createHash('sha256').update(token).digest().readUInt32BE(0);
    const bot: Bot = {
      token,
      username,
      id,
      webhook: undefined,
      lastUpdateId: 0,
      lastMessageId: 0,
      throttled: { count: 0, retryAfter: 0 },
    };
    this.byToken.set(token, bot);
    this.byUsername.set(username.toLowerCase(), bot);
  }

  /** false: sendMessage calls are not kept in `sent` (benchmarks send hundreds of thousands). */
  recordSent(on: boolean): void {
    this.recording = on;
  }

  /** Whether the Bot API knows a bot of this username. */
  knows(username: string): boolean {
    return this.byUsername.has(username.replace(/^@/, '').toLowerCase());
  }

  /** The webhook a bot registered with setWebhook, if any. */
  webhookOf(username: string): { url: string; secretToken: string | undefined } | undefined {
    return this.bot(username).webhook;
  }

  /** Makes the bot's next `count` sendMessage calls answer 429 with `retry_after` seconds (flood control). */
  throttle(username: string, count: number, retryAfterSeconds: number): void {
    this.bot(username).throttled = { count, retryAfter: retryAfterSeconds };
  }

  /** One Bot API call: the token and method of the path, the parameters of the query and body. */
  call(token: string, method: string, params: Record<string, unknown>): ApiAnswer {
    const bot = this.byToken.get(token);
    if (!bot) return failure(401, 'Unauthorized');
    switch (method.toLowerCase()) {
      case 'getme':
        return success({
          id: bot.id,
          is_bot: true,
          first_name: bot.username,
          username: bot.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'setwebhook':
        return this.setWebhook(bot, params);
      case 'deletewebhook':
        bot.webhook = undefined;
        return success(true, 'Webhook was deleted');
      case 'getwebhookinfo':
        return success({ url: bot.webhook?.url ?? '', has_custom_certificate: false, pending_update_count: 0 });
      case 'sendmessage':
        return this.sendMessage(bot, params);
      default:
        return failure(404, 'Not Found');
    }
  }

  private setWebhook(bot: Bot, params: Record<string, unknown>): ApiAnswer {
    const url = params.url;
    if (typeof url !== 'string') return failure(400, 'Bad Request: bad webhook: Failed to resolve host');
    if (url === '') {
      bot.webhook = undefined;
      return success(true, 'Webhook was deleted');
    }
    if (!URL.canParse(url)) return failure(400, 'Bad Request: bad webhook: Failed to resolve host');
    const secret = params.secret_token;
    if (secret !== undefined && (typeof secret !== 'string' || !SECRET_TOKEN.test(secret))) {
      return failure(400, 'Bad Request: secret token contains unallowed characters');
    }
    bot.webhook = { url, secretToken: secret };
    return success(true, 'Webhook was set');
  }

  private sendMessage(bot: Bot, params: Record<string, unknown>): ApiAnswer {
    const { chat_id: chatId, text } = params;
    const answer = this.sendOutcome(bot, chatId, text);
    if (typeof text === 'string' && this.recording) {
      this.sent.push({ botUsername: bot.username, chatId: String(chatId), text, status: answer.status });
    }
    return answer;
  }

  private sendOutcome(bot: Bot, chatId: unknown, text: unknown): ApiAnswer {
    if (chatId === undefined || chatId === '') return failure(400, 'Bad Request: chat_id is empty');
    if (typeof text !== 'string' || text.trim() === '') return failure(400, 'Bad Request: message text is empty');
    if (text.length > TEXT_LENGTH) return failure(400, 'Bad Request: message is too long');
    if (bot.throttled.count > 0) {
      bot.throttled.count--;
      const seconds = bot.throttled.retryAfter;
      return failure(429, `Too Many Requests: retry after ${seconds}`, seconds);
    }
    const number = numberOfChat(chatId);
    if (number === undefined || number.endsWith('7')) return failure(400, 'Bad Request: chat not found');
    if (number.endsWith('8')) return failure(403, 'Forbidden: bot was blocked by the user');
    return success({
      message_id: ++bot.lastMessageId,
      from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
      chat: { id: telegramUserId(number), first_name: SUBSCRIBER_NAME, type: 'private' },
      date: this.unixNow(),
      text,
    });
  }

  /**
   * The subscriber `from` writes to the bot `username`: the Update is POSTed to the bot's webhook with
   * `X-Telegram-Bot-Api-Secret-Token` when it set one, again while the webhook answers other than 2xx. Resolves with
   * the first POST's delivery; rejects when the bot has no webhook or `from` has no Telegram (last digit 7).
   */
  async write(username: string, from: string, message: SubscriberMessage): Promise<UpdateDelivery> {
    const bot = this.bot(username);
    const webhook = bot.webhook;
    if (!webhook) throw new Error(`bot ${bot.username} has no webhook`);
    if (from.endsWith('7')) throw new Error(`${from} has no Telegram account`);
    if (message.kind === 'contact' && (message.phoneNumber ?? from) === from) {
      const key = bot.username.toLowerCase();
      this.shared.set(key, (this.shared.get(key) ?? new Set()).add(from));
    }
    const user = { id: telegramUserId(from), is_bot: false, first_name: SUBSCRIBER_NAME, language_code: 'en' };
    const update = {
      update_id: ++bot.lastUpdateId,
      message: {
        message_id: ++bot.lastMessageId,
        from: user,
        chat: { id: user.id, first_name: SUBSCRIBER_NAME, type: 'private' },
        date: this.unixNow(),
        ...this.content(from, message),
      },
    };
    return this.postUpdate(bot, webhook, update, 1);
  }

  private content(from: string, message: SubscriberMessage): Record<string, unknown> {
    switch (message.kind) {
      case 'start':
        return { text: '/start', entities: [{ offset: 0, length: 6, type: 'bot_command' }] };
      case 'text':
        return { text: message.text };
      case 'contact': {
        const number = message.phoneNumber ?? from;
        const firstName = number === from ? SUBSCRIBER_NAME : 'Contact';
        return { contact: { phone_number: number, first_name: firstName, user_id: telegramUserId(number) } };
      }
    }
  }

  private async postUpdate(
    bot: Bot,
    webhook: { url: string; secretToken: string | undefined },
    update: Record<string, unknown>,
    attempt: number,
  ): Promise<UpdateDelivery> {
    const headers: Record<string, string> = {};
    if (webhook.secretToken !== undefined) headers['x-telegram-bot-api-secret-token'] = webhook.secretToken;
    const { status, text } = await postJsonAnswer(webhook.url, headers, JSON.stringify(update));
    const reply = status !== null && status < 300 ? this.replyOf(bot, text) : undefined;
    const delivery = { botUsername: bot.username, update, secretToken: webhook.secretToken, attempt, status, reply };
    this.deliveries.push(delivery);
    if ((status === null || status >= 300) && attempt < UPDATE_ATTEMPTS) {
      this.timers.later(1000 * attempt, () => void this.postUpdate(bot, webhook, update, attempt + 1));
    }
    return delivery;
  }

  /**
   * The method call a webhook's answer makes ("Making requests when getting updates": a JSON object with `method`
   * and its parameters), made as if it came on its own; undefined for an answer without one.
   */
  private replyOf(bot: Bot, text: string): UpdateDelivery['reply'] {
    let value: unknown;
    try {
      value = text ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
    if (!isPlainObject(value) || typeof value.method !== 'string') return undefined;
    const { method, ...params } = value;
    return { method, params, answer: this.call(bot.token, method, params) };
  }

  /**
   * The subscriber `from` writes `text` to the bot, having shared their own contact first if they had not yet (the
   * `POST /sim/v1/inbound` of TELEGRAM: a linked subscriber's message, DESIGN 18).
   */
  async writeAsLinked(username: string, from: string, text: string): Promise<UpdateDelivery> {
    const key = username.replace(/^@/, '').toLowerCase();
    const shared = this.shared.get(key) ?? new Set<string>();
    if (!shared.has(from)) {
      const linked = await this.write(username, from, { kind: 'contact' });
      if (linked.status !== 200) return linked;
    }
    return this.write(username, from, { kind: 'text', text });
  }

  private bot(username: string): Bot {
    const bot = this.byUsername.get(username.replace(/^@/, '').toLowerCase());
    if (!bot) throw new Error(`no bot ${username}`);
    return bot;
  }

  private unixNow(): number {
    return Math.floor(this.timers.clock.nowMs() / 1000);
  }
}
