/** The routes simulators/ serves, for the composition root (main.ts) to register. */
export { simulatorBanner, simulatorRoutes } from './simulatorRoutes.js';
