/** The routes guard/ serves, for the composition root (main.ts) to register. */
export { consentRoutes } from './consentRoutes.js';
export { refusalRoutes } from './refusalRoutes.js';
export { settingsRoutes } from './settingsRoutes.js';
