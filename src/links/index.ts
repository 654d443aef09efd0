/** What other parts of Herald may use of links/; everything else in the folder is its own. */
export {
  shortLinkClicksPerMessageSql,
  shortLinkInsert,
  shortLinksDeleteOfMessageRange,
  shortLinksDeleteOfMessages,
  shortLinkUnsubscribeConfirmed,
  shortLinkUnsubscribeTarget,
} from './shortLinkSql.js';
export type { UnsubscribeTarget } from './shortLinkSql.js';
export {
  CODE_LENGTH,
  insertUnsubscribeLink,
  MAX_LINKS_PER_MESSAGE,
  linkCount,
  shortenText,
  UNSUBSCRIBE_PATH,
  UNSUBSCRIBE_PLACEHOLDER,
} from './shortLinks.js';
export type { ShortLink } from './shortLinks.js';
