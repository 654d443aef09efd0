/**
 * What other parts of Herald may use of messages/, the owner of the messages table (and of submissions, orphan
 * receipts, message keys and WhatsApp windows) through a message's whole life: stored, claimed, moved by outcomes
 * and receipts, looked up, stopped, expired, dropped with its partition. Everything else in the folder is its own.
 * Intake (validation, prices, generation) is sending/'s; it stores through messageInsertBatch.
 */
export type { ClaimedMessage, ClaimLimits } from './claimSql.js';
export { messageClaimDue, messageClaimsEnd, messageNextDue } from './claimSql.js';
export { messageExpireDue, messageNextExpiry } from './expirySql.js';
export type { OutcomeBatch } from './outcomes.js';
export { messageApplyOrphanReceipts, messageOutcomes, messageRecordOutcomes, receiptsPerPart } from './outcomes.js';
export type { StepOutcome } from './stepOutcomes.js';
export {
  orphanReceiptsAny,
  submissionPollsClaim,
  submissionPollsDone,
  submissionPollsNext,
  submissionRecordPrices,
} from './submissionSql.js';
export { DELIVERY_ERRORS, FINAL_STATUSES, isReadTracked, READ_TRACKED } from './statuses.js';
export type { MessageRow } from './messageObject.js';
export { messageToApi } from './messageObject.js';
export { MessageObject } from './messageSchemas.js';
export {
  messageCascadeChannelCounts,
  messageCascadeSteps,
  messageGet,
  messageOutboundFlashcallIds,
  messageReceiptFacts,
  messageStop,
} from './messageLookupSql.js';
export type { MessageReceiptFacts } from './messageLookupSql.js';
export { type CascadeStopper, messagesStop, type StopItem } from './stopMessages.js';
export type { RollupFilter } from './listTotal.js';
export { messageFiguresSql, messageOldestId, messageQueueFigures } from './messageStatisticsSql.js';
export type { NewMessage, SendingMethod, ValidMessage } from './messageSql.js';
export { messageInsertBatch, messageInsertInbound, messagesJoin } from './messageSql.js';
export type { MessageIdRange } from './messagePartitions.js';
export { EVERY_ID, messageJobs, messagePartitionsEnsure, QueueFloor } from './messagePartitions.js';
/** The deletes of the retention (retention/ is their one user): `messageRetention.dropPartition(...)`. */
export * as messageRetention from './retentionSql.js';
/** The statements on the messages of a dispatch (dispatches/ is their one user): `dispatchMessages.hold(...)`. */
export * as dispatchMessages from './dispatchMessageSql.js';
/** The statements on the messages of a fraud hold (fraud/ is their one user): `fraudHoldMessages.release(...)`. */
export * as fraudHoldMessages from './fraudHoldSql.js';
export { whatsappWindowOpen, whatsappWindowsOpenOf } from './whatsappWindows.js';
export { messageCarrierRefund } from './refundSql.js';
export { messagesOfReceipts, type ReceiptDestination } from './submissionSql.js';
export { MARGIN_GROUPS, type MarginGroup, type MarginRow, messageMargins } from './marginSql.js';
