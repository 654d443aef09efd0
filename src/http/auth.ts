import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { tokenFindLive } from '../accounts/tokenSql.js';
import { parseAuthorization, secretMatches, type TokenType } from '../accounts/tokens.js';
import type { Db } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import type { Channel } from '../shared/channels.js';

/** The authenticated caller of a client API operation. */
export interface Principal {
  readonly accountId: number;
  readonly tokenId: string;
  readonly tokenType: TokenType;
  readonly trafficCenterId: number | null;
  /** The operator's channel switches of the account (see shared/channels.ts). */
  readonly accountChannels: Partial<Record<Channel, boolean>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * An onRequest hook that authenticates a client token before the body is read (spec section 5): no header ->
 * 401 4010, a header that is no live token -> 401 4012, a token of another type -> 403 4030, a blocked account ->
 * 403 4032.
 */
export function requireToken(db: Db, allowed: readonly TokenType[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const presented = parseAuthorization(request.headers.authorization);
    if (presented === 'missing') throw herald('notAuthenticated');
    if (presented === 'invalid') throw herald('badCredentials');
    const token = await tokenFindLive(db, presented.keyId);
    if (!token || !secretMatches(presented.secret, Buffer.from(token.secret_hash))) throw herald('badCredentials');
    if (!allowed.includes(token.type)) throw herald('accessDenied');
    if (token.account_status !== 'active') throw herald('accountBlocked');
    request.principal = {
      accountId: token.account_id,
      tokenId: token.id,
      tokenType: token.type,
      trafficCenterId: token.traffic_center_id,
      accountChannels: token.account_channels,
    };
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its requireToken hook');
  return request.principal;
}

/** An onRequest hook for the operator API: `Authorization: Bearer <HERALD_ADMIN_TOKEN>`, compared in constant time. */
export function requireAdmin(adminToken: string | undefined) {
  const expected = adminToken === undefined ? undefined : createHash('sha256').update(adminToken).digest();
  return async (request: FastifyRequest): Promise<void> => {
    if (!expected) throw herald('adminApiDisabled');
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw herald('notAuthenticated');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const presented = createHash('sha256').update(match?.[1] ?? '').digest();
    if (!match || !timingSafeEqual(presented, expected)) throw herald('badCredentials');
  };
}
