/** What other parts of Herald may use of links/; everything else in the folder is its own. */
export {
  shortLinkClicksPerMessageSql,
  shortLinkInsert,
  shortLinksDeleteOfMessageRange,
  shortLinksDeleteOfMessages,
} from './shortLinkSql.js';
export { MAX_LINKS_PER_MESSAGE, linkCount, shortenText } from './shortLinks.js';
export type { ShortLink } from './shortLinks.js';
