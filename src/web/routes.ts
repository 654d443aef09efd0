/** The routes web/ serves, for the composition root (main.ts) to register. */
export { webRoutes } from './webRoutes.js';
