/** The routes telegram/ serves, for the composition root (main.ts) to register. */
export { telegramRoutes } from './telegramRoutes.js';
