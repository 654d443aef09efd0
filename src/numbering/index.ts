/** What other parts of Herald may use of numbering/; everything else in the folder is its own. */
export { NumberingPlan } from './numberingPlan.js';
export { lookupSubscriber } from './subscriber.js';
export type { Subscriber } from './subscriber.js';
export { normaliseDestination } from './destination.js';
export type { Destination } from './destination.js';
