/** The routes verify/ serves, for the composition root (main.ts) to register. */
export { verifierRoutes } from './verifierRoutes.js';
