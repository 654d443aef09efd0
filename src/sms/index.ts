/** What other parts of Herald may use of sms/; everything else in the folder is its own. */
export { gsmCharCost, gsmEncode, gsmSeptetCount } from './gsm7.js';
export { SMS_CAPACITY, SMS_MAX_PARTS, smsPartCount, smsSplit } from './parts.js';
