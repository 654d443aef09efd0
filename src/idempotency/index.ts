/** What other parts of Herald may use of idempotency/; everything else in the folder is its own. */
export { idempotencyKeyOf, idempotentReplay, runIdempotent } from './idempotency.js';
export type { IdempotentResult } from './idempotency.js';
export { idempotencyJobs } from './jobs.js';
