/** What other parts of Herald may use of mnp/ (the number portability base); the rest of the folder is its own. */
export { mnpBrands } from './mnpSql.js';
export { PortedNumbers } from './portedNumbers.js';
