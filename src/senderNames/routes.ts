/** The routes senderNames/ serves, for the composition root (main.ts) to register. */
export { adminSenderNameRoutes } from './adminRoutes.js';
export { senderNameRoutes } from './senderNameRoutes.js';
