/** What other parts of Herald may use of dispatches/; everything else in the folder is its own. */
export { dispatchStatuses } from './dispatchSql.js';
