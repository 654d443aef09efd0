/** What other parts of Herald may use of statistics/; everything else in the folder is its own. */
export { dirtyDaysCte } from './dirtyDaysSql.js';
export { statisticsJobs } from './jobs.js';
export { statsRolledUntil } from './statisticsSql.js';
