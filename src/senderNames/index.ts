/** What other parts of Herald may use of senderNames/; everything else in the folder is its own. */
export { senderNameExists, senderNameInsert, senderNameWhatsappOwner, whatsappNumberOf } from './senderNameSql.js';
export { SENDER_NAME_MAX_LENGTH, activeSenderNames } from './senderNames.js';
