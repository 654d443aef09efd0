/** What other parts of Herald may use of fraud/ (pumping detection and holds); everything else is its own. */
export type { PumpingSettings } from './pumping.js';
export { DEFAULT_PUMPING, pumpingCapped } from './pumping.js';
export type { PumpingItem } from './holds.js';
export { pumpingCheck, pumpingHoldsBefore, pumpingProofs } from './holds.js';
export { fraudJobs } from './jobs.js';
