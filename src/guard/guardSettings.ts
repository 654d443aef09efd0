import { DEFAULT_GUARD, type GuardSettings } from '../shared/guardSettings.js';

/**
 * The effective guard settings of a caller (a principal, loaded with its token) or a sender (sending/generation.ts);
 * the defaults when it carries none (a cascade's later step is generated without its account's token).
 */
export function guardOf(holder: { readonly guard?: GuardSettings | undefined }): GuardSettings {
  return holder.guard ?? DEFAULT_GUARD;
}
