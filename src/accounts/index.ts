/** What other parts of Herald may use of accounts/; everything else in the folder is its own. */
export { accountGet, accountSetCallbackSecret, accountUpdate } from './accountSql.js';
export { accountGetOr404, createAccount, newCallbackSecret } from './accounts.js';
export { adminAccountRoutes } from './adminRoutes.js';
export { apiKeyRoutes } from './apiKeyRoutes.js';
export { balanceRoutes } from './balanceRoutes.js';
export { ledgerAppend, ledgerCreditCte } from './ledgerSql.js';
export { PasswordHasher } from './passwords.js';
export { sessionRoutes } from './sessionRoutes.js';
export { tokenFindLive, tokenLiveBoundToCenter } from './tokenSql.js';
export { parseAuthorization, secretMatches } from './tokens.js';
export type { TokenType } from './tokens.js';
export { adminUserRoutes } from './userRoutes.js';
