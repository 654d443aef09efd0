import { randomBytes } from 'node:crypto';
import { hashSecret } from '../util/secrets.js';

export const TOKEN_TYPES = ['traffic', 'system', 'verify'] as const;
/**
 * `traffic` is the spec's TOKEN_1 (sending, conversions); `system` is TOKEN_2 (sender names, templates, ...);
 * `verify` is TOKEN_3 (sending and checking one-time codes through a verifier, and nothing else: DESIGN 16).
 */
export type TokenType = (typeof TOKEN_TYPES)[number];

export interface IssuedToken {
  /** The key id: public, stored in clear, names the token in lists and revocation. */
  readonly id: string;
  /** base64("<id>:<secret>"): what the client sends after `Basic ` or `Bearer `. Shown once. */
  readonly token: string;
  readonly secretHash: Buffer;
}

/** How a key id starts: the token's type can be read from it (TOKEN_1, TOKEN_2, TOKEN_3). */
const KEY_ID_PREFIX: Record<TokenType, string> = { traffic: 't1', system: 't2', verify: 't3' };

/** Issues a new token. The secret has 256 random bits, so a fast hash (SHA-256) is enough to store it. */
export function issueToken(type: TokenType): IssuedToken {
  const id = `${KEY_ID_PREFIX[type]}_${randomBytes(9).toString('base64url')}`;
  const secret = randomBytes(32).toString('base64url');
  return { id, token: Buffer.from(`${id}:${secret}`).toString('base64'), secretHash: hashSecret(secret) };
}

const KEY_ID = /^[\w-]{1,64}$/;

export interface PresentedCredentials {
  readonly scheme: 'basic' | 'bearer';
  readonly keyId: string;
  readonly secret: string;
}

/**
 * Reads `Authorization: Basic <token>` or `Bearer <token>`. Returns `missing` when there is no header, `invalid`
 * when it cannot be a Herald token (the caller answers 4010 and 4012 respectively).
 */
export function parseAuthorization(header: string | undefined): PresentedCredentials | 'missing' | 'invalid' {
  if (header === undefined || header.trim() === '') return 'missing';
  const match = /^(Basic|Bearer)\s+(\S+)\s*$/i.exec(header);
  if (!match) return 'invalid';
  const parsed = parseToken(match[2]!);
  if (parsed === 'invalid') return 'invalid';
  return { scheme: match[1]!.toLowerCase() as 'basic' | 'bearer', ...parsed };
}

/** Reads a token as issued, base64("<keyId>:<secret>"); `invalid` when it cannot be a Herald token. */
export function parseToken(encoded: string): { keyId: string; secret: string } | 'invalid' {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length > 400) return 'invalid';
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return 'invalid';
  const keyId = decoded.slice(0, colon);
  // Issued ids are base64url (issueToken); anything else names no token, and a NUL would fail the lookup itself.
  if (!KEY_ID.test(keyId)) return 'invalid';
  return { keyId, secret: decoded.slice(colon + 1) };
}
