/** What other parts of Herald may use of telegram/; everything else in the folder is its own. */
export { TelegramChatDirectory } from './telegramChats.js';
export {
  botConnectorOf,
  botsPublicUrl,
  botWebhookRegister,
  botWebhooksRegisterAll,
  botWebhookUrl,
  telegramBotSetup,
} from './botWebhooks.js';
