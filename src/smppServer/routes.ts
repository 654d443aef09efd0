export { smppRoutes } from './smppRoutes.js';
