import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import { enterForRequest } from '../http/accountConcurrency.js';
import { authGuard, type Limits } from '../http/auth.js';
import { acceptSessionCookie, cookieOf, SESSION_COOKIES } from '../http/sessionCookie.js';
import type { Channel } from '../shared/channels.js';
import { effectiveGuard, type GuardSettings } from '../shared/guardSettings.js';
import type { Clock } from '../util/clock.js';
import { tokenFindLive, type TokenWithAccountRow } from './tokenSql.js';
import { sessionCookieCredentials } from './sessionCookie.js';
import { secretMatches } from '../util/secrets.js';
import { parseAuthorization, type TokenType } from './tokens.js';

/** The authenticated caller of a client API operation. */
export interface Principal {
  readonly accountId: number;
  readonly tokenId: string;
  readonly tokenType: TokenType;
  readonly trafficCenterId: number | null;
  /** The operator's channel switches of the account (see shared/channels.ts). */
  readonly accountChannels: Partial<Record<Channel, boolean>>;
  /** The account's currency (ISO 4217): prices and balances are in it. */
  readonly accountCurrency: string;
  /** The operator's cap on the account's sending (messages per second), or null. */
  readonly accountMaxRate: number | null;
  /** The web sign-in that issued the token (a session token, accounts/sessions.ts), or null for an API key. */
  readonly sessionId: string | null;
  /**
   * The user the token descends from (a sign-in's user; migration 0013), or null. Keys it issues descend from them too.
   */
  readonly createdByUser: number | null;
  /** The account's effective fraud guard and consent settings, loaded with the token (guard/ applies them). */
  readonly guard: GuardSettings;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/**
 * What authentication needs: the tokens, the time (session tokens expire), and the limits on requests and on failed
 * attempts.
 */
export interface AuthContext {
  readonly db: Db;
  readonly clock: Clock;
  readonly limits: Limits;
}

/**
 * An onRequest hook that authenticates a client token before the body is read (spec section 5): no header ->
 * 401 4010, a header that is no live token -> 401 4012, a token of another type -> 403 4030, a blocked account ->
 * 403 4032; then the account's request rate (429 4290 with Retry-After), and one of the account's places (requests
 * at once, accountConcurrency.ts: waits briefly for one, else 429 4290). An address that keeps presenting bad tokens
 * gets 429 before any lookup. A request without the header may present the personal account's session cookie
 * instead (accounts/sessionCookie.ts); then a state-changing one also needs its CSRF token (403 4037).
 */
export function requireToken(ctx: AuthContext, allowed: readonly TokenType[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let presented = parseAuthorization(request.headers.authorization);
    // Without an Authorization header, the personal account's session cookie (a page's own request) stands for it.
    const cookie = presented === 'missing' ? cookieOf(request, SESSION_COOKIES.app) : undefined;
    if (cookie !== undefined) presented = sessionCookieCredentials(cookie, allowed);
    if (presented === 'missing') throw herald('notAuthenticated');
    const failed = authGuard(ctx.limits, request);
    if (presented === 'invalid') throw failed(herald('badCredentials'));
    const token = await tokenFindLive(ctx.db, presented.keyId, ctx.clock.now());
    if (!token || !secretMatches(presented.secret, Buffer.from(token.secret_hash)))
      throw failed(herald('badCredentials'));
    if (cookie !== undefined && token.session_id === null) throw failed(herald('badCredentials'));
    if (!allowed.includes(token.type)) throw herald('accessDenied');
    if (cookie !== undefined) acceptSessionCookie(request, cookie);
    if (token.account_status !== 'active') throw herald('accountBlocked');
    const wait = ctx.limits.requests.take(`account:${token.account_id}`);
    if (wait > 0) {
      ctx.limits.metrics.rateLimited.inc({ kind: 'requests' });
      throw herald('tooManyRequests', { retryAfter: wait });
    }
    try {
      await enterForRequest(ctx.limits.concurrency, token.account_id, request, reply);
    } catch (error) {
      // A client that left while waiting was refused nothing.
      if (!reply.raw.destroyed) ctx.limits.metrics.rateLimited.inc({ kind: 'account_concurrency' });
      throw error;
    }
    request.principal = principalOfToken(token);
  };
}

/** The caller a live token stands for (also an SMPP bind's, smppServer/). */
export function principalOfToken(token: TokenWithAccountRow): Principal {
  return {
    accountId: token.account_id,
    tokenId: token.id,
    tokenType: token.type,
    trafficCenterId: token.traffic_center_id,
    accountChannels: token.account_channels,
    accountCurrency: token.account_currency,
    accountMaxRate: token.account_max_rate,
    sessionId: token.session_id,
    createdByUser: token.created_by_user,
    guard: effectiveGuard(token.account_guard_operator, token.account_guard_client),
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its requireToken hook');
  return request.principal;
}
