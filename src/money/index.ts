/** What other parts of Herald may use of money/; everything else in the folder is its own. */
export { fromMicros, toMicros } from './amount.js';
export type { Micros } from './amount.js';
export { reserveCharges } from './reservation.js';
export { tariffReplaceFromConfig } from './tariffSql.js';
export { Tariffs } from './tariffs.js';
