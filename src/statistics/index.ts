/** What other parts of Herald may use of statistics/; everything else in the folder is its own. */
export { statisticsJobs } from './jobs.js';
export { statsCleanDayCounts, statsDirtyBetween, statsRolledUntil } from './statisticsSql.js';
export { statsRange } from './range.js';
