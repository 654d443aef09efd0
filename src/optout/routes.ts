/** The routes optout/ serves, for the composition root (main.ts) to register. */
export { optOutRoutes } from './optOutRoutes.js';
export { unsubscribeRoutes } from './unsubscribeRoutes.js';
