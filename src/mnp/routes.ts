/** The routes mnp/ serves, for the composition root (main.ts) to register. */
export { adminMnpRoutes } from './mnpRoutes.js';
