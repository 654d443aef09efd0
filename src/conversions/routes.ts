/** The routes conversions/ serves, for the composition root (main.ts) to register. */
export { conversionRoutes } from './conversionRoutes.js';
