import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Db } from '../db/db.js';
import {
  botApiCall,
  botWebhookSecret,
  type ConnectorConfig,
  type TelegramBotConnectorConfig,
} from '../connectors/index.js';
import { type BotSetup, senderNameBots } from '../senderNames/index.js';
import { isPlainObject } from '../shared/text.js';

/**
 * The connector that registers bots' webhooks and takes their updates: the first telegram-bot connector of the
 * configuration (one deployment talks to one Bot API; a second one would only move every bot's webhook to itself).
 */
export function botConnectorOf(connectors: readonly ConnectorConfig[]): TelegramBotConnectorConfig | undefined {
  return connectors.find((c): c is TelegramBotConnectorConfig => c.type === 'telegram-bot');
}

/** Where Telegram posts a bot's updates. */
export function botWebhookUrl(publicUrl: string, connectorId: string, botId: number): string {
  return `${publicUrl.replace(/\/+$/, '')}/webhooks/${encodeURIComponent(connectorId)}/bots/${botId}`;
}

/**
 * Checks a bot's token with `getMe` (the token must belong to the bot the sender name names) and registers its
 * webhook with `setWebhook` and the bot's secret token, for messages only. Returns Telegram's refusal, if any.
 */
export async function botWebhookRegister(
  connector: TelegramBotConnectorConfig,
  publicUrl: string | undefined,
  bot: { id: number; name: string; token: string },
): Promise<string | undefined> {
  const me = await botApiCall(connector.baseUrl, bot.token, 'getMe', {});
  if (!me.ok) return `getMe: ${me.description ?? 'refused'}`;
  const username = isPlainObject(me.result) ? me.result.username : undefined;
  if (typeof username !== 'string' || username.toLowerCase() !== bot.name.toLowerCase()) {
    return `the token belongs to @${String(username)}, not to @${bot.name}`;
  }
  if (publicUrl === undefined) return undefined;
  const set = await botApiCall(connector.baseUrl, bot.token, 'setWebhook', {
    url: botWebhookUrl(publicUrl, connector.id, bot.id),
    secret_token: botWebhookSecret(bot.token),
    allowed_updates: ['message'],
  });
  return set.ok ? undefined : `setWebhook: ${set.description ?? 'refused'}`;
}

/**
 * Registers every bot's webhook (at start, so that a changed public address or a restarted Bot API server takes
 * effect); a bot Telegram refuses is logged and left, the others go on.
 */
export async function botWebhooksRegisterAll(
  db: Db,
  connector: TelegramBotConnectorConfig,
  publicUrl: string,
  log: Logger,
): Promise<number> {
  let registered = 0;
  for (const bot of await senderNameBots(db)) {
    const problem = await botWebhookRegister(connector, publicUrl, bot);
    if (problem) log.warn({ connector: connector.id, bot: bot.name, problem }, 'bot webhook not registered');
    else registered++;
  }
  return registered;
}

/** Where bots' webhooks go: the configured public address, or Herald's own when the carriers are simulators. */
export function botsPublicUrl(ctx: AppContext, connector: TelegramBotConnectorConfig): string | undefined {
  return connector.publicUrl ?? ctx.selfCallbackUrl.value;
}

/**
 * How an operator's `PATCH /admin/v1/sender-names/{id}` `{botToken}` reaches Telegram: the token is checked with
 * `getMe` before it is stored (it must be the sender name's bot), then the bot's webhook is registered. Without a
 * telegram-bot connector nothing is asked: the token is only stored.
 */
export function telegramBotSetup(ctx: AppContext): BotSetup | undefined {
  const connector = botConnectorOf(ctx.configFile.connectors);
  if (!connector) return undefined;
  return {
    async check(name, token) {
      const me = await botApiCall(connector.baseUrl, token, 'getMe', {});
      if (!me.ok)
        return me.reachable ? { refused: me.description ?? 'refused' } : { unreachable: me.description ?? '' };
      const username = isPlainObject(me.result) ? me.result.username : undefined;
      if (typeof username !== 'string' || username.toLowerCase() !== name.toLowerCase())
        return { refused: `it is the token of @${String(username)}, not of @${name}` };
      return undefined;
    },
    async attached(bot) {
      const publicUrl = botsPublicUrl(ctx, connector);
      if (!publicUrl) return `not registered: the connector ${connector.id} has no publicUrl`;
      const problem = await botWebhookRegister(connector, publicUrl, bot);
      return problem ? `not registered: ${problem}` : `registered at ${botWebhookUrl(publicUrl, connector.id, bot.id)}`;
    },
  };
}
