/** What other parts of Herald may use of routing/ (DESIGN 21); everything else in the folder is its own. */
export type { Route, RouteConnector, RouteFields, RouteQuery } from './route.js';
export { RouteBook, RouteBookWatcher } from './routeBook.js';
export { adminRouteRoutes } from './routeRoutes.js';
export { routeSeed } from './routeSql.js';
export { routesOfConfig } from './routeInput.js';
export { adminMarginRoutes } from './marginRoutes.js';
