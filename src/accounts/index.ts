/** What other parts of Herald may use of accounts/; everything else in the folder is its own. */
export { accountGet, accountIds, accountSetCallbackSecret, accountUpdate } from './accountSql.js';
export { accountGetOr404, createAccount, newCallbackSecret } from './accounts.js';
export { balancesLock, ledgerAppend, ledgerCreditCte } from './ledgerSql.js';
export { accountTakePace } from './paceSql.js';
export { PasswordHasher, SCRYPT_PARAMS } from './passwords.js';
export { tokenFindLive, tokenLiveBoundToCenter } from './tokenSql.js';
export { parseAuthorization, secretMatches } from './tokens.js';
export {
  trafficCenterCount,
  trafficCenterDefault,
  trafficCenterDelete,
  trafficCenterGet,
  trafficCenterHold,
  trafficCenterInsert,
  trafficCenterList,
  trafficCenterLock,
  trafficCenterUpdate,
} from './trafficCenterSql.js';
export type { TrafficCenterRow } from './trafficCenterSql.js';
export type { TokenType } from './tokens.js';
