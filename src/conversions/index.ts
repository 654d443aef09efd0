/** What other parts of Herald may use of conversions/; everything else in the folder is its own. */
export {
  conversionsDeleteOfMessageRange,
  conversionsDeleteOfMessages,
  conversionsPerMessageSql,
  conversionUpsert,
} from './conversionSql.js';
