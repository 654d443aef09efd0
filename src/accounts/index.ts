/** What other parts of Herald may use of accounts/; everything else in the folder is its own. */
export { accountGet, accountIds, accountsMissing, accountSetCallbackSecret, accountUpdate } from './accountSql.js';
export { AccountSettings, GuardChange, SettingsAudit } from './accountSchemas.js';
export { accountGuardChange, accountGuardGet, accountSettingsAuditPage } from './accountSettingsSql.js';
export { accountGetOr404, createAccount, newCallbackSecret } from './accounts.js';
export { balancesLock, ledgerAppend, ledgerCreditCte } from './ledgerSql.js';
export { accountTakePace } from './paceSql.js';
export { PasswordHasher, SCRYPT_PARAMS } from './passwords.js';
export { principalOf, principalOfToken, requireToken } from './principal.js';
export type { Principal } from './principal.js';
export { tokenFindLive, tokenLiveBoundToCenter } from './tokenSql.js';
export type { TokenWithAccountRow } from './tokenSql.js';
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
