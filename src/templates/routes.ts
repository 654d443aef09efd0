/** The routes templates/ serves, for the composition root (main.ts) to register. */
export { adminTemplateRoutes, templateRoutes } from './templateRoutes.js';
