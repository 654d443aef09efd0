/** The routes money/ serves, for the composition root (main.ts) to register. */
export { adminTariffRoutes } from './tariffRoutes.js';
