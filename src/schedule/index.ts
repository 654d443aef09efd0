/** What other parts of Herald may use of schedule/; everything else in the folder is its own. */
export { messageWindow, type WindowFields, windowZones } from './messageWindow.js';
export { PaceSlots } from './paceSlots.js';
export {
  completionInstant,
  DEFAULT_TTL_SECONDS,
  isUnconstrained,
  nextAllowedInstant,
  planSend,
  SEARCH_HORIZON_MS,
} from './sendWindow.js';
export type { SendWindow } from './sendWindow.js';
export { isValidZone, wallBound } from './zonedTime.js';
