/** The routes inbound/ serves, for the composition root (main.ts) to register. */
export { adminInboundRoutes, inboundRoutes } from './inboundRoutes.js';
