/** What other parts of Herald may use of callbacks/; everything else in the folder is its own. */
export { CallbackSender, DEFAULT_SENDER_OPTIONS } from './callbackSender.js';
export type { CallbackSenderOptions } from './callbackSender.js';
export { CallbackTargets, recheckCallbackTargetsBefore } from './callbackTargets.js';
export { CALLBACK_URL_MAX_LENGTH, callbackUrlProblem } from './callbackUrl.js';
export { callbackPostsDeleteFinished } from './postRetentionSql.js';
export {
  PRICE_EVENT_ORDER,
  callbackEventInsert,
  cascadeOf,
  eventSelect,
  insertEventsCte,
  laneSql,
  priceExtra,
  statusEventsCte,
  statusEventsSelect,
  wantsEvent,
} from './eventSql.js';
export { CALLBACK_EVENTS, isCallbackEvent } from './events.js';
export { callbackBacklog } from './laneSql.js';
export { inPost } from './postRange.js';
export type { CallbackEvent } from './events.js';
export { callbackJobs } from './jobs.js';
export { callbackTargetsRecheck, callbackTargetUrl } from './targetSql.js';
export type { EventColumns, NewEvent } from './eventSql.js';
export {
  callbackSmppAck,
  callbackSmppEnd,
  callbackSmppPostEvents,
  callbackSmppPostsClaim,
  callbackSmppRelease,
  callbackSmppRenew,
  callbackSmppWaiting,
  SMPP_BINDS_URL,
  SMPP_FAILURE_RECEIPTS_URL,
} from './smppPostSql.js';
export type { SmppEvent, SmppPost, SmppPostsShare } from './smppPostSql.js';
