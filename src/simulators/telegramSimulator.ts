import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isPlainObject } from '../shared/text.js';
import { TelegramBotApi } from './telegramBotApi.js';
import { type ApiAnswer, closeServer, jsonServer, listenOn, sendJson } from './simulatorServers.js';
import { TelegramGatewayApi } from './telegramGatewayApi.js';
import { Timers } from './timers.js';
import type { Clock } from '../util/clock.js';

/**
 * Telegram's two public HTTP APIs on one real port, as Telegram documents them, for Herald's TELEGRAM connectors
 * (DESIGN section 18) to be tested against:
 * - the Bot API at `/bot<token>/<method>` (https://core.telegram.org/bots/api: "Making requests", getMe,
 *   setWebhook with secret_token, deleteWebhook, getWebhookInfo, sendMessage, Update, Message, Contact,
 *   ResponseParameters), in telegramBotApi.ts;
 * - the Gateway API at `/gateway/<method>` (https://core.telegram.org/gateway/api: checkSendAbility,
 *   sendVerificationMessage, checkVerificationStatus, revokeVerificationMessage, RequestStatus, DeliveryStatus,
 *   "Report delivery" and "Checking report integrity"; https://core.telegram.org/gateway/verification-tutorial), in
 *   telegramGatewayApi.ts. The real Gateway answers at `https://gatewayapi.telegram.org/<method>`: a client's base
 *   URL is this simulator's {@link TelegramSimulator.gatewayUrl}.
 * Both take GET and POST, parameters in the query string, `application/x-www-form-urlencoded` or
 * `application/json` (the Bot API's multipart/form-data is for file uploads, which the simulator has no use for);
 * method names are case-insensitive, as both pages say. Webhooks and callback URLs may be plain http here (loopback
 * in tests), where Telegram requires https.
 */
export interface TelegramSimulatorOptions {
  readonly host?: string;
  readonly port?: number;
  /** Delay between a Gateway message's status steps (sent, delivered, read), on the clock. */
  readonly delayMs: number;
  /** The clock of the delays (a test's, which can jump over them); the system clock by default. */
  readonly clock?: Clock;
  /** The bots the Bot API knows: token (`<bot id>:<secret>`) -> username without `@`. */
  readonly bots: Readonly<Record<string, string>>;
  /** The Gateway API token (`Authorization: Bearer <token>` or `access_token`), also the key of report signatures. */
  readonly gatewayToken: string;
  /** The Gateway account's balance in credits at start (default {@link GATEWAY_BALANCE}). */
  readonly gatewayBalance?: number;
  /** The price of one verification message in credits (default {@link GATEWAY_PRICE}). */
  readonly gatewayPrice?: number;
}

/** A balance for 10 000 messages at the default price: no test runs it out unless it sets a smaller one. */
export const GATEWAY_BALANCE = 100;
/** One message's price in credits: $0.01, the Gateway's price per message as announced at its launch. */
export const GATEWAY_PRICE = 0.01;

const BOT_PATH = /^\/bot([^/]+)\/([A-Za-z]+)$/;
const GATEWAY_PATH = /^\/gateway\/([A-Za-z]+)$/;

export class TelegramSimulator {
  readonly bot: TelegramBotApi;
  readonly gateway: TelegramGatewayApi;
  private readonly timers: Timers;
  private server: Server | undefined;
  port = 0;

  constructor(private readonly options: TelegramSimulatorOptions) {
    this.timers = new Timers(options.clock);
    this.bot = new TelegramBotApi(options.bots, this.timers);
    this.gateway = new TelegramGatewayApi({
      token: options.gatewayToken,
      balance: options.gatewayBalance ?? GATEWAY_BALANCE,
      price: options.gatewayPrice ?? GATEWAY_PRICE,
      delayMs: options.delayMs,
      timers: this.timers,
    });
  }

  /** The Bot API's base: a client calls `${botApiUrl}/bot<token>/<method>`. */
  get botApiUrl(): string {
    return `http://${this.options.host ?? '127.0.0.1'}:${this.port}`;
  }

  /** The Gateway API's base: a client calls `${gatewayUrl}/<method>`. */
  get gatewayUrl(): string {
    return `${this.botApiUrl}/gateway`;
  }

  async start(): Promise<number> {
    this.server = jsonServer(
      (req, res) => this.handle(req, res),
      (error) => ({ status: 500, body: { ok: false, error: String(error) } }),
    );
    this.port = await listenOn(this.server, this.options.host, this.options.port);
    return this.port;
  }

  async stop(): Promise<void> {
    this.timers.clear();
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const params = req.method === 'POST' ? await readParams(req, url) : Object.fromEntries(url.searchParams);
    const bot = BOT_PATH.exec(url.pathname);
    if (bot && (req.method === 'GET' || req.method === 'POST')) {
      return sendJson(res, params ? this.bot.call(decodeURIComponent(bot[1]!), bot[2]!, params) : badBotRequest());
    }
    const gateway = GATEWAY_PATH.exec(url.pathname);
    if (gateway && (req.method === 'GET' || req.method === 'POST')) {
      const answer = params
        ? this.gateway.call(gateway[1]!, params, req.headers.authorization)
        : { status: 400, body: { ok: false, error: 'BAD_REQUEST' } };
      return sendJson(res, answer);
    }
    sendJson(res, { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
  }
}

/** The Bot API's answer to a body it cannot parse. */
function badBotRequest(): ApiAnswer {
  return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: invalid request body' } };
}

/** The query string's parameters with the body's over them; undefined for a body that does not parse. */
async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const query = Object.fromEntries(url.searchParams);
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (text === '') return query;
  if (type === 'application/x-www-form-urlencoded')
    return { ...query, ...Object.fromEntries(new URLSearchParams(text)) };
  if (type !== 'application/json') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? { ...query, ...value } : undefined;
  } catch {
    return undefined;
  }
}
