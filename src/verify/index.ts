/** What other parts of Herald may use of verify/; everything else in the folder is its own. */
export { verifyJobs } from './jobs.js';
