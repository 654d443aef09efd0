/**
 * Herald's TypeScript SDK: a typed client of the client API (`/api/v1/...`), one method per operation of the
 * OpenAPI document, named by its operationId. See README.md.
 */
export {
  type Answer,
  type CallOptions,
  createHeraldClient,
  DEFAULT_TIMEOUT_MS,
  type HeraldClient,
  type HeraldClientOptions,
  type OperationId,
  type RequestBody,
} from './client.js';
export { HeraldApiError, HeraldNetworkError } from './errors.js';
export type { components, operations, paths } from './openapi.js';
export { OPERATIONS } from './operations.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
