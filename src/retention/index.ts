/** What other parts of Herald may use of retention/ (HERALD_RETENTION_DAYS); the rest of the folder is its own. */
export { retentionJobs } from './jobs.js';
export { retentionCutoff, retentionSweep } from './retention.js';
export type { RetentionResult } from './retention.js';
