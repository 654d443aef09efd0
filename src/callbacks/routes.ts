/** The routes callbacks/ serves, for the composition root (main.ts) to register. */
export { callbackRoutes } from './callbackRoutes.js';
