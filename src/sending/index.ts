/**
 * What other parts of Herald may use of sending/: a message's intake, from the request to the stored row
 * (validation by spec sections 2, 7 and 8, sender names, prices, pacing, short links, generation, the hand-over to
 * the submitter). The API's send, cascades, dispatches and verifications all go through it; the rows it stores are
 * messages/'s. Everything else in the folder is its own.
 */
export { TEXT_BOUNDS, validateContent, VOICECODE_SENDER_NAME } from './channelContent.js';
export { validateWhatsappContent, WHATSAPP_LIMITS } from './whatsappContent.js';
export type { CommonValues, ValidationContext, WindowValues } from './validateMessage.js';
export { validateCommonFields, validateMessage, validateTrafficType } from './validateMessage.js';
export type { SendItem, SendResponse, SmppReceipts } from './sendMessages.js';
export {
  handLeased,
  handOver,
  itemError,
  MAX_BATCH,
  messageRowBytes,
  ONE_TRANSACTION_BYTES,
  senderOf,
  sendMessages,
  storeBatch,
  validationContext,
} from './sendMessages.js';
export type { Candidate, MessageToGenerate, Sender } from './generation.js';
export { newMessageId, prepareMessages, storeMessages, storeRefused } from './generation.js';
export { SendResponse as SendResponseSchema } from './sendSchemas.js';
