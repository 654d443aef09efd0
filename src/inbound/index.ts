/** What other parts of Herald may use of inbound/; everything else in the folder is its own. */
export { receiveInbound, storeInbound } from './inbound.js';
export type { ChannelInbound } from './inbound.js';
export { receiveSmsInbound } from './smsInbound.js';
export { inboundNumberAssign } from './inboundNumberSql.js';
export { inboundJobs } from './jobs.js';
