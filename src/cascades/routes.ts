/** The routes cascades/ serves, for the composition root (main.ts) to register. */
export { cascadeRoutes } from './cascadeRoutes.js';
