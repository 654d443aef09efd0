/** What other parts of Herald may use of smppServer/ (DESIGN 22): the server for the composition root. */
export { DEFAULT_SMPP_SERVER_OPTIONS, receiptLimitsFor, SmppServer } from './smppServer.js';
export type { SmppServerOptions } from './smppServer.js';
