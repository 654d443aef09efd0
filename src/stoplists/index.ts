/** What other parts of Herald may use of stoplists/; everything else in the folder is its own. */
export { carrierBlocklistSink } from './carrierBlocklist.js';
export {
  type NewStopEntry,
  STOP_SOURCES,
  type StopCheck,
  type StopEntry,
  stopListAdd,
  stopListMatch,
  stopListMatchOfAccounts,
  type StopSource,
} from './stopListSql.js';
