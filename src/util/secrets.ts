import { createHash, timingSafeEqual } from 'node:crypto';

/* Secrets compared in constant time: tokens, the admin token, session cookies, webhook signatures. */

/** A secret as stored: SHA-256, enough for secrets of 256 random bits (tokens, sessions). */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const presented = hashSecret(secret);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}

/**
 * Compares a presented secret with the expected one in constant time: both are hashed first, so that neither the
 * content nor the length of the expected one shows in the time taken.
 */
export function sameSecret(presented: string, expected: string): boolean {
  return secretMatches(presented, hashSecret(expected));
}
