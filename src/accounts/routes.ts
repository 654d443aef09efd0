/** The routes accounts/ serves, for the composition root (main.ts) to register. */
export { adminAccountRoutes } from './adminRoutes.js';
export { apiKeyRoutes } from './apiKeyRoutes.js';
export { balanceRoutes } from './balanceRoutes.js';
export { sessionRoutes } from './sessionRoutes.js';
export { adminUserRoutes } from './userRoutes.js';
