/** The routes statistics/ serves, for the composition root (main.ts) to register. */
export { statisticsRoutes } from './statisticsRoutes.js';
