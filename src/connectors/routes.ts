/** The routes connectors/ serves, for the composition root (main.ts) to register. */
export { adminConnectorRoutes } from './adminRoutes.js';
export { webhookRoutes } from './webhookRoutes.js';
