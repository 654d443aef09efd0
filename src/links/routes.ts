/** The routes links/ serves, for the composition root (main.ts) to register. */
export { linkRoutes } from './linkRoutes.js';
