/** What other parts of Herald may use of optout/; everything else in the folder is its own. */
export { optOutByKeyword, optOutCommitted, OPTED_OUT_TRAFFIC } from './optOut.js';
export type { InboundText, OptOut } from './optOut.js';
