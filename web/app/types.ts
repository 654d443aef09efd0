import type { Answer, Item } from '../shared/apiClient.js';

/*
 * Names for the client API's shapes that pages pass around, each an alias of the generated types
 * (sdk/typescript/src/openapi.ts, `npm run api:types`), so they cannot drift from the API. Where a value comes straight
 * from a call, its type is inferred from the operation and needs no name here.
 */

/** GET /api/v1/message/{uuid}: one message with its price, parts and status history. */
export type Message = Answer<'/api/v1/message/{uuid}', 'get'>;
export type SenderName = Item<Answer<'/api/v1/sender-names', 'get'>>;
export type Template = Item<Answer<'/api/v1/templates', 'get'>>;
export type TrafficCenter = Item<Answer<'/api/v1/traffic-centers', 'get'>>;
export type InboundRule = Item<Answer<'/api/v1/inbound-rules', 'get'>>;

/** GET /api/v1/statistics: groups, each with its counts, and their total. */
export type Statistics = Answer<'/api/v1/statistics', 'get'>;
export type StatisticsGroup = Statistics['total'];

/** GET /api/v1/verifiers: a verifier (DESIGN 16), how one-time codes are made and sent. */
export type Verifier = Item<Answer<'/api/v1/verifiers', 'get'>>;
/** GET /api/v1/verifiers/statistics: sends, confirmations and conversion per verifier and channel. */
export type VerificationStatistics = Answer<'/api/v1/verifiers/statistics', 'get'>;
