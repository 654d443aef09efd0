import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { botWebhookSecretValid } from '../connectors/index.js';
import { herald } from '../errors/catalogue.js';
import { authFailed, authGuard } from '../http/auth.js';
import type { Routes } from '../http/server.js';
import { senderNameBotById } from '../senderNames/index.js';
import { botConnectorOf } from './botWebhooks.js';
import { type Bot, receiveBotUpdate } from './telegramUpdates.js';

declare module 'fastify' {
  interface FastifyRequest {
    telegramBot?: Bot;
  }
}

/**
 * `POST /webhooks/{connector id}/bots/{bot id}`: the updates of an account's bot (its TELEGRAM sender name id), as
 * registered by setWebhook. Each is checked, before its body is read, against the bot's secret token
 * (`X-Telegram-Bot-Api-Secret-Token`); a wrong one is 401 4012, counted per connector and as a failed authentication
 * of the address. The answer is 200 once the update is recorded (Telegram sends it again otherwise), with the reply
 * to the subscriber as a method call when there is one.
 */
export const telegramRoutes: Routes = (app, ctx) => {
  const connector = botConnectorOf(ctx.configFile.connectors);
  if (!connector) return;
  type Params = { connectorId: string; botId: string };
  const refuse = (request: FastifyRequest) => {
    ctx.metrics.webhookRefused.inc({ connector: connector.id });
    return authFailed(ctx.limits, request, herald('badCredentials'));
  };
  app.post(
    '/webhooks/:connectorId/bots/:botId',
    {
      schema: { hide: true, params: Type.Object({ connectorId: Type.String(), botId: Type.String() }) },
      bodyLimit: ctx.config.webhookBodyLimitBytes,
      onRequest: async (request) => {
        const { connectorId, botId } = request.params as Params;
        if (connectorId !== connector.id || !/^\d{1,15}$/.test(botId))
          throw herald('notFound', { what: `Connector ${connectorId}` });
        authGuard(ctx.limits, request);
        const bot = await senderNameBotById(ctx.db, Number(botId));
        if (!bot || !botWebhookSecretValid(request.headers['x-telegram-bot-api-secret-token'], bot.token))
          throw refuse(request);
        request.telegramBot = bot;
      },
    },
    async (request) => {
      const { kind, answer } = await receiveBotUpdate(ctx, connector.id, request.telegramBot!, request.body);
      if (kind === 'foreign-contact')
        ctx.log.info(
          { connector: connector.id, bot: request.telegramBot!.name },
          'a contact not the sender own refused',
        );
      return answer;
    },
  );
};
