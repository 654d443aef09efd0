/** The routes verify/ serves, for the composition root (main.ts) to register. */
export { verificationRoutes } from './verificationRoutes.js';
export { verifierRoutes } from './verifierRoutes.js';
