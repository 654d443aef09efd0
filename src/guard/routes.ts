/** The routes guard/ serves, for the composition root (main.ts) to register. */
export { settingsRoutes } from './settingsRoutes.js';
