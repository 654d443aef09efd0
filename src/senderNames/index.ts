/** What other parts of Herald may use of senderNames/; everything else in the folder is its own. */
export type { SenderNameBot } from './senderNameSql.js';
export {
  senderNameBotById,
  senderNameBots,
  senderNameBotToken,
  senderNameExists,
  senderNameInsert,
  senderNameSetBotToken,
  senderNameWhatsappOwner,
  whatsappNumberOf,
} from './senderNameSql.js';
export { SENDER_NAME_MAX_LENGTH, activeSenderNames, isTelegramBotUsername } from './senderNames.js';
export type { BotCheck, BotSetup } from './adminRoutes.js';
