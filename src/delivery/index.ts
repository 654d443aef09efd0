/** What other parts of Herald may use of delivery/; everything else in the folder is its own. */
export { DEFAULT_WRITER_OPTIONS, DeliveryWriter } from './deliveryWriter.js';
export { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, isUrgent } from './dispatcher.js';
export type { DispatcherOptions } from './dispatcher.js';
export { deliveryJobs } from './jobs.js';
export { AnnouncingWakeup, Wakeup } from './wakeup.js';
