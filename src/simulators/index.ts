/** What other parts of Herald may use of simulators/; everything else in the folder is its own. */
export { startEmbeddedSimulators } from './embeddedSimulators.js';
export type { EmbeddedSimulators } from './embeddedSimulators.js';
