/** What other parts of Herald may use of idempotency/; everything else in the folder is its own. */
export {
  idempotencyKeyOf,
  idempotentAfterRace,
  idempotentRecord,
  idempotentReplay,
  runIdempotent,
  runIdempotentInSlices,
} from './idempotency.js';
export type { IdempotentRequest, IdempotentResult, Slices } from './idempotency.js';
export { idempotencyJobs } from './jobs.js';
