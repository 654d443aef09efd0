/** What other parts of Herald may use of messages/; everything else in the folder is its own. */
export { TEXT_BOUNDS, VOICECODE_SENDER_NAME } from './channelContent.js';
export { normaliseDestination } from './destination.js';
export type { Destination } from './destination.js';
export { MESSAGE_COLUMNS, messageToApi } from './messageObject.js';
export type { MessageRow } from './messageObject.js';
export { validateWhatsappContent, WHATSAPP_LIMITS } from './whatsappContent.js';
export {
  claimLimits,
  messageApplyTransitions,
  messageClaimDue,
  messageNextDue,
  messageCountDeliveredParts,
  messageExpireDue,
  messageNextExpiry,
  messageLockOrdered,
  messageNoteIgnored,
} from './messageDeliverySql.js';
export type { ClaimedMessage, ClaimLimits, StepOutcome, SubmissionRow } from './messageDeliverySql.js';
export { messageCascadeChannelCounts, messageCascadeSteps, messageOutboundFlashcallIds } from './messageLookupSql.js';
export type { CascadeChannelCount } from './messageLookupSql.js';
export { messageFiguresSql, messageOldestId, messageQueueFigures } from './messageStatisticsSql.js';
export type { MessageCounts, QueueFigure } from './messageStatisticsSql.js';
export { messageInsertInbound, messagesDeleteFinished, messagesJoin } from './messageSql.js';
export {
  isLockTimeout,
  messageJobs,
  messagePartitionCallbackTargets,
  messagePartitionDrop,
  messagePartitionIds,
  messagePartitions,
  messagePartitionsDroppable,
  messagePartitionsEnsure,
  PARTITION_DAYS_AHEAD,
} from './messagePartitions.js';
export type { MessageIdRange, MessagePartition } from './messagePartitions.js';
export type { NewInbound } from './messageSql.js';
export {
  orphanReceiptsAny,
  orphanReceiptsTakeMatched,
  submissionMatchReceipts,
  submissionSetPartStates,
  submissionsDeleteBefore,
} from './submissionSql.js';
export type { MatchedReceipt } from './submissionSql.js';
export { DELIVERY_ERRORS, READ_TRACKED } from './statuses.js';
export type { ReadStatus, Status } from './statuses.js';
export { mergeReceipt, retryTransition, roundsOf, sentTransition, statusTransition } from './transitions.js';
export type { HistoryEntry, TargetStatus, Transition } from './transitions.js';
export { WHATSAPP_WINDOW_MS, whatsappWindowOpen, whatsappWindowsOpenOf } from './whatsappWindows.js';
export { TRAFFIC_TYPES, validateCommonFields, validateMessage, validateTrafficType } from './validateMessage.js';
export type { CommonValues, TrafficType, ValidationContext, ValidMessage, WindowValues } from './validateMessage.js';
export {
  handLeased,
  handOver,
  itemError,
  MAX_BATCH,
  messageRowBytes,
  senderOf,
  storeBatch,
  validationContext,
} from './sendMessages.js';
export type { SendItem, SendResponse } from './sendMessages.js';
export { newMessageId, prepareMessages, storeMessages, storeRefused } from './generate.js';
export type { Candidate, MessageToGenerate, Sender } from './generate.js';
export type { NewMessage, SendingMethod } from './messageSql.js';
export { MessageObject, SendResponse as SendResponseSchema } from './messageSchemas.js';
export { messageGet, messageStop } from './messageLookupSql.js';
export {
  messageDispatchActivity,
  messageDispatchCounts,
  messageDispatchHeld,
  messageDispatchHold,
  messageDispatchPlan,
  messageDispatchSchedule,
  messageDispatchStop,
  messageDispatchUnsettled,
} from './dispatchMessageSql.js';
export type { DispatchCount, HeldMessage, HeldPlan, Unsettled } from './dispatchMessageSql.js';
