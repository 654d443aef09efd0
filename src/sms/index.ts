/** What other parts of Herald may use of sms/; everything else in the folder is its own. */
export { gsmCharCost, gsmEncode, gsmSeptetCount } from './gsm7.js';
export type { SmsEncoding } from './parts.js';
export { SMS_CAPACITY, SMS_MAX_PARTS, smsEncoding, smsPartCount, smsSplit } from './parts.js';
