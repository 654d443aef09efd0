import type { Answer, Item } from '../shared/apiClient.js';

/*
 * Names for the operator API's shapes that the console passes around, each an alias of the generated types
 * (sdk/typescript/src/openapi.ts, `npm run api:types`), so they cannot drift from the API. Where a value comes straight
 * from a call, its type is inferred from the operation and needs no name here.
 */

/** GET /admin/v1/accounts/{id}: one account with its switches, credit limit and balances. */
export type Account = Answer<'/admin/v1/accounts/{id}', 'get'>;
export type User = Item<Answer<'/admin/v1/accounts/{id}/users', 'get'>>;
export type Tariff = Item<Answer<'/admin/v1/tariffs', 'get'>>;
/** GET /admin/v1/connectors: live connector states and the queue depth per state. */
export type Connectors = Answer<'/admin/v1/connectors', 'get'>;
/** GET /admin/v1/routes: one route of the operator's table (DESIGN 21). */
export type Route = Item<Answer<'/admin/v1/routes', 'get'>>;
/** GET /admin/v1/routes/resolve: what a message would get now. */
export type Resolved = Answer<'/admin/v1/routes/resolve', 'get'>;
/** GET /admin/v1/reports/margin: one line of the margin report. */
export type MarginItem = Item<Answer<'/admin/v1/reports/margin', 'get'>>;
