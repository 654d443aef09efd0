import { randomInt } from 'node:crypto';
import type { AppContext } from '../context.js';
import { smppPasswordSet } from './smppPasswordSql.js';

/**
 * Letters and digits without the ones read alike (0/O, 1/l/I): 57 signs, so 8 of them are some 46 bits, and each
 * guess costs a scrypt (accounts/passwords.ts) and counts against the address's failed attempts.
 */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
export const SMPP_PASSWORD_LENGTH = 8;

/** Issues a new SMPP password for the token (the old one stops working); returns it: it is shown this once. */
export async function issueSmppPassword(ctx: AppContext, tokenId: string, accountId: number): Promise<string> {
  let password = '';
  for (let i = 0; i < SMPP_PASSWORD_LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  const passwordHash = await ctx.passwords.hash(password);
  await smppPasswordSet(ctx.db, { tokenId, accountId, passwordHash, now: ctx.clock.now() });
  return password;
}
