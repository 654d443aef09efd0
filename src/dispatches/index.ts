/** What other parts of Herald may use of dispatches/; everything else in the folder is its own. */
export { dispatchStatusesShared } from './dispatchSql.js';
