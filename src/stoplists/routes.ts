/** The routes stoplists/ serves, for the composition root (main.ts) to register. */
export { adminStopListRoutes, stopListRoutes } from './stopListRoutes.js';
