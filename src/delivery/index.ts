/** What other parts of Herald may use of delivery/; everything else in the folder is its own. */
export { DEFAULT_WRITER_OPTIONS, DeliveryWriter } from './deliveryWriter.js';
export { DEFAULT_SUBMITTER_OPTIONS, isUrgent, Submitter } from './submitter.js';
export type { SubmitterOptions } from './submitter.js';
export { deliveryJobs } from './jobs.js';
export { NO_STEPS_CREATED } from './outcomeHooks.js';
export type { OutcomeHooks, StepsCreated } from './outcomeHooks.js';
export { AnnouncingWakeup, Wakeup } from './wakeup.js';
