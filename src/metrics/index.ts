/** What other parts of Herald may use of metrics/; everything else in the folder is its own. */
export { Metrics } from './metrics.js';
