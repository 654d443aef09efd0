/**
 * The `operationId` of every documented operation, by `METHOD path`: the names a generated client gives its methods
 * (`client.messageSend(...)`). The scheme (docs/api.md): `[admin]<Entity><Verb>` in camelCase, the entity singular,
 * then one verb of {@link OPERATION_VERBS}; operations of the operator API (`/admin/`) start with `admin`. Paths are a
 * contract and never change, so neither do these ids; a route may also state its own `operationId` in its schema,
 * which wins. test/http/openapiOperations.test.ts fails for a documented route without an id here, naming the line
 * to add.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  // System
  'GET /api/v1/ping': 'pingGet',
  'GET /healthz': 'livenessGet',
  'GET /readyz': 'readinessGet',
  // Messages
  'POST /api/v1/message': 'messageSend',
  'GET /api/v1/message': 'messageList',
  'GET /api/v1/message/{uuid}': 'messageGet',
  'POST /api/v1/message/stop': 'messageStop',
  'POST /api/v1/message/estimate': 'messageEstimateGet',
  // SMPP server (docs/smpp-server.md)
  'POST /api/v1/smpp-passwords': 'smppPasswordCreate',
  'GET /api/v1/smpp-binds': 'smppBindList',
  'POST /admin/v1/accounts/{id}/smpp-passwords': 'adminSmppPasswordCreate',
  'GET /admin/v1/smpp-binds': 'adminSmppBindList',
  // Cascades
  'POST /api/v1/message/cascade': 'cascadeSend',
  'GET /api/v1/message/cascade/{uuid}': 'cascadeGet',
  // Dispatches
  'POST /api/v1/dispatch': 'dispatchCreate',
  'GET /api/v1/dispatch': 'dispatchList',
  'GET /api/v1/dispatch/{id}': 'dispatchGet',
  'POST /api/v1/dispatch/{id}/messages': 'dispatchMessageAdd',
  'POST /api/v1/dispatch/{id}/start': 'dispatchStart',
  'POST /api/v1/dispatch/{id}/pause': 'dispatchPause',
  'POST /api/v1/dispatch/{id}/resume': 'dispatchResume',
  'POST /api/v1/dispatch/{id}/stop': 'dispatchStop',
  // Verification
  'POST /api/v1/verifiers': 'verifierCreate',
  'GET /api/v1/verifiers': 'verifierList',
  'GET /api/v1/verifiers/statistics': 'verifierStatisticsGet',
  'GET /api/v1/verifiers/{gatewayId}': 'verifierGet',
  'PATCH /api/v1/verifiers/{gatewayId}': 'verifierUpdate',
  'DELETE /api/v1/verifiers/{gatewayId}': 'verifierDelete',
  'POST /api/v1/verifier/send': 'verificationSend',
  'POST /api/v1/verifier/check': 'verificationCheck',
  // Account
  'GET /api/v1/balance': 'balanceGet',
  'GET /api/v1/api-keys': 'apiKeyList',
  'POST /api/v1/api-keys': 'apiKeyCreate',
  'DELETE /api/v1/api-keys/{id}': 'apiKeyRevoke',
  'POST /app/v1/session': 'sessionCreate',
  'DELETE /app/v1/session': 'sessionDelete',
  'GET /app/v1/session': 'sessionGet',
  'POST /admin/v1/session': 'adminSessionCreate',
  'GET /admin/v1/session': 'adminSessionGet',
  'DELETE /admin/v1/session': 'adminSessionDelete',
  // Sender names and templates
  'POST /api/v1/sender-names': 'senderNameCreate',
  'GET /api/v1/sender-names': 'senderNameList',
  'GET /api/v1/sender-names/{id}': 'senderNameGet',
  'DELETE /api/v1/sender-names/{id}': 'senderNameDelete',
  'POST /api/v1/templates': 'templateCreate',
  'GET /api/v1/templates': 'templateList',
  'GET /api/v1/templates/{id}': 'templateGet',
  'PUT /api/v1/templates/{id}': 'templateUpdate',
  'DELETE /api/v1/templates/{id}': 'templateDelete',
  // Inbound
  'GET /api/v1/traffic-centers': 'trafficCenterList',
  'POST /api/v1/traffic-centers': 'trafficCenterCreate',
  'GET /api/v1/traffic-centers/{id}': 'trafficCenterGet',
  'PATCH /api/v1/traffic-centers/{id}': 'trafficCenterUpdate',
  'DELETE /api/v1/traffic-centers/{id}': 'trafficCenterDelete',
  'GET /api/v1/inbound-rules': 'inboundRuleList',
  'POST /api/v1/inbound-rules': 'inboundRuleCreate',
  'GET /api/v1/inbound-rules/{id}': 'inboundRuleGet',
  'PUT /api/v1/inbound-rules/{id}': 'inboundRuleReplace',
  'DELETE /api/v1/inbound-rules/{id}': 'inboundRuleDelete',
  // Statistics, settings, consents
  'GET /api/v1/statistics': 'statisticsGet',
  'GET /api/v1/statistics/refusals': 'refusalStatisticsGet',
  'GET /api/v1/settings': 'settingsGet',
  'PATCH /api/v1/settings': 'settingsUpdate',
  'GET /api/v1/settings/audit': 'settingsAuditList',
  'POST /api/v1/consents': 'consentCreate',
  'GET /api/v1/consents': 'consentList',
  'GET /api/v1/consents/export': 'consentExport',
  // Stop list and opt-out
  'POST /api/v1/stop-list': 'stopListEntryCreate',
  'GET /api/v1/stop-list': 'stopListEntryList',
  'GET /api/v1/stop-list/export': 'stopListExport',
  'POST /api/v1/stop-list/import': 'stopListImport',
  'GET /api/v1/stop-list/{id}': 'stopListEntryGet',
  'DELETE /api/v1/stop-list/{id}': 'stopListEntryDelete',
  'GET /api/v1/opt-out': 'optOutSettingsGet',
  'PUT /api/v1/opt-out': 'optOutSettingsReplace',
  // Callbacks and conversions
  'GET /api/v1/callbacks': 'callbackDeliveryList',
  'GET /api/v1/callbacks/{id}': 'callbackDeliveryGet',
  'POST /api/v1/callbacks/replay': 'callbackDeliveryReplay',
  'GET /api/v1/callback-secret': 'callbackSecretGet',
  'POST /api/v1/callback-secret/rotate': 'callbackSecretRotate',
  'POST /api/v1/flashcall-conversion': 'flashcallConversionReport',
  // Operator: accounts
  'POST /admin/v1/accounts': 'adminAccountCreate',
  'GET /admin/v1/accounts': 'adminAccountList',
  'GET /admin/v1/accounts/{id}': 'adminAccountGet',
  'PATCH /admin/v1/accounts/{id}': 'adminAccountUpdate',
  'POST /admin/v1/accounts/{id}/tokens': 'adminTokenCreate',
  'GET /admin/v1/accounts/{id}/tokens': 'adminTokenList',
  'DELETE /admin/v1/accounts/{id}/tokens/{tokenId}': 'adminTokenRevoke',
  'POST /admin/v1/accounts/{id}/balance': 'adminBalanceAdjust',
  'GET /admin/v1/accounts/{id}/ledger': 'adminLedgerList',
  'GET /admin/v1/accounts/{id}/settings-audit': 'adminSettingsAuditList',
  'GET /admin/v1/accounts/{id}/refusals': 'adminRefusalStatisticsGet',
  'POST /admin/v1/accounts/{id}/users': 'adminUserCreate',
  'GET /admin/v1/accounts/{id}/users': 'adminUserList',
  'DELETE /admin/v1/accounts/{id}/users/{userId}': 'adminUserDelete',
  'PUT /admin/v1/accounts/{id}/users/{userId}/password': 'adminUserPasswordSet',
  // Operator: sender names and templates
  'POST /admin/v1/accounts/{id}/sender-names': 'adminSenderNameCreate',
  'GET /admin/v1/sender-names': 'adminSenderNameList',
  'PATCH /admin/v1/sender-names/{id}': 'adminSenderNameUpdate',
  'POST /admin/v1/sender-names/{id}/approve': 'adminSenderNameApprove',
  'POST /admin/v1/sender-names/{id}/reject': 'adminSenderNameReject',
  'GET /admin/v1/templates': 'adminTemplateList',
  'POST /admin/v1/templates/{id}/approve': 'adminTemplateApprove',
  'POST /admin/v1/templates/{id}/reject': 'adminTemplateReject',
  // Operator: inbound
  'POST /admin/v1/accounts/{id}/inbound-numbers': 'adminInboundNumberAssign',
  'GET /admin/v1/accounts/{id}/inbound-numbers': 'adminInboundNumberList',
  'PATCH /admin/v1/accounts/{id}/inbound-numbers/{number}': 'adminInboundNumberMove',
  'DELETE /admin/v1/accounts/{id}/inbound-numbers/{number}': 'adminInboundNumberRelease',
  'GET /admin/v1/inbounds/unrouted': 'adminUnroutedInboundList',
  // Operator: money, connectors, routes
  'POST /admin/v1/tariffs': 'adminTariffCreate',
  'GET /admin/v1/tariffs': 'adminTariffList',
  'DELETE /admin/v1/tariffs/{id}': 'adminTariffDelete',
  'GET /admin/v1/connectors': 'adminConnectorList',
  'POST /admin/v1/routes': 'adminRouteCreate',
  'GET /admin/v1/routes': 'adminRouteList',
  'GET /admin/v1/routes/resolve': 'adminRouteResolve',
  'POST /admin/v1/routes/reorder': 'adminRouteReorder',
  'GET /admin/v1/routes/{id}': 'adminRouteGet',
  'PATCH /admin/v1/routes/{id}': 'adminRouteUpdate',
  'DELETE /admin/v1/routes/{id}': 'adminRouteDelete',
  'GET /admin/v1/reports/margin': 'adminMarginReportGet',
  // Operator: fraud holds, stop list, number portability
  'GET /admin/v1/holds': 'adminHoldList',
  'POST /admin/v1/holds/{id}/release': 'adminHoldRelease',
  'POST /admin/v1/holds/{id}/reject': 'adminHoldReject',
  'POST /admin/v1/stop-list': 'adminStopListEntryCreate',
  'GET /admin/v1/stop-list': 'adminStopListEntryList',
  'GET /admin/v1/stop-list/export': 'adminStopListExport',
  'POST /admin/v1/stop-list/import': 'adminStopListImport',
  'GET /admin/v1/stop-list/{id}': 'adminStopListEntryGet',
  'DELETE /admin/v1/stop-list/{id}': 'adminStopListEntryDelete',
  'POST /admin/v1/mnp/import': 'adminMnpImportCreate',
  'GET /admin/v1/mnp/imports/{id}': 'adminMnpImportGet',
};

/**
 * The verbs an operationId may end with. A new kind of action adds its verb here (and to docs/api.md), deliberately:
 * CRUD first (List, Get, Create, Update for a change of the fields given, Replace for a PUT of the whole, Delete),
 * then the API's own actions.
 */
export const OPERATION_VERBS = [
  'List',
  'Get',
  'Create',
  'Update',
  'Replace',
  'Delete',
  'Send',
  'Stop',
  'Start',
  'Pause',
  'Resume',
  'Add',
  'Check',
  'Approve',
  'Reject',
  'Release',
  'Revoke',
  'Rotate',
  'Replay',
  'Import',
  'Export',
  'Report',
  'Resolve',
  'Reorder',
  'Adjust',
  'Assign',
  'Move',
  'Set',
  'Follow',
  'Confirm',
] as const;

/**
 * The scheme every operationId follows: camelCase, an entity then a verb of {@link OPERATION_VERBS}, with the prefix
 * `admin` exactly on the operator API's operations (`/admin/`).
 */
export const OPERATION_ID = new RegExp(`^(admin)?([a-z][a-zA-Z]*|[A-Z][a-zA-Z]*)(${OPERATION_VERBS.join('|')})$`);

/** The operationId of `method path` (a route's own wins), or undefined when it has none yet. */
export const operationIdOf = (method: string, path: string): string | undefined =>
  OPERATION_IDS[`${method.toUpperCase()} ${path}`];
