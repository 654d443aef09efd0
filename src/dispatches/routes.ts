/** The routes dispatches/ serves, for the composition root (main.ts) to register. */
export { dispatchRoutes } from './dispatchRoutes.js';
