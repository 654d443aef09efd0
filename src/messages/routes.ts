/** The routes messages/ serves, for the composition root (main.ts) to register. */
export { lookupRoutes } from './lookupRoutes.js';
