/** What other parts of Herald may use of verify/; everything else in the folder is its own. */
export { VERIFIERS_PER_ACCOUNT } from './verifierRoutes.js';
