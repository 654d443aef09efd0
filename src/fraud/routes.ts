/** The routes fraud/ serves, for the composition root (main.ts) to register. */
export { adminHoldRoutes } from './holdRoutes.js';
