/** The routes sending/ serves, for the composition root (main.ts) to register. */
export { messageRoutes } from './sendRoutes.js';
export { estimateRoutes } from './estimateRoutes.js';
