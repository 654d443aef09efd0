/** What other parts of Herald may use of messages/; everything else in the folder is its own. */
export { VOICECODE_SENDER_NAME } from './channelContent.js';
export { normaliseDestination } from './destination.js';
export { MESSAGE_COLUMNS, messageToApi } from './messageObject.js';
export type { MessageRow } from './messageObject.js';
export { validateWhatsappContent, WHATSAPP_LIMITS } from './whatsappContent.js';
export { messageInsertInbound } from './messageSql.js';
export type { NewInbound } from './messageSql.js';
export { WHATSAPP_WINDOW_MS, whatsappWindowOpen, whatsappWindowsOpenOf } from './whatsappWindows.js';
