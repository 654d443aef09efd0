/** What other parts of Herald may use of schedule/; everything else in the folder is its own. */
export { messageWindow, windowZones } from './messageWindow.js';
export { completionInstant, DEFAULT_TTL_SECONDS, isUnconstrained, nextAllowedInstant, planSend } from './sendWindow.js';
export type { SendWindow } from './sendWindow.js';
export { isValidZone, wallBound } from './zonedTime.js';
