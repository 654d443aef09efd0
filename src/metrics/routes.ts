/** The routes metrics/ serves, for the composition root (main.ts) to register. */
export { opsRoutes } from './opsRoutes.js';
