/** What other parts of Herald may use of guard/: the fraud guard's and consent's checks and settings. */
export { guardAtGeneration, guardAtStore, spendDayOf, SPEND_ZONE } from './guard.js';
export type { GuardedItem, RefusalCounter, StoreGuard, StoredItem } from './guard.js';
export { guardOf } from './guardSettings.js';
export { countRefusals } from './refusals.js';
export type { Refusal } from './refusalSql.js';
export type { GuardSettings, PumpingSettings } from '../shared/guardSettings.js';
export { guardJobs } from './jobs.js';
