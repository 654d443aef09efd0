/** What other parts of Herald may use of guard/: the fraud guard's and consent's checks and settings. */
export { guardOf } from './guardSettings.js';
export type { GuardSettings, PumpingSettings } from '../shared/guardSettings.js';
