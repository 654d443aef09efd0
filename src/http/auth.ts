import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenFindLive } from '../accounts/index.js';
import { parseAuthorization, secretMatches, type TokenType } from '../accounts/index.js';
import type { Db } from '../db/db.js';
import { herald, type HeraldError } from '../errors/catalogue.js';
import { AccountConcurrency, enterForRequest } from './accountConcurrency.js';
import { failureKeyOf } from './clientAddress.js';
import { RateLimiter } from './rateLimit.js';
import type { Channel } from '../shared/channels.js';
import type { Clock } from '../util/clock.js';

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

export interface Limits {
  /** Requests per account. */
  readonly requests: RateLimiter;
  /** Requests of one account handled at once. */
  readonly concurrency: AccountConcurrency;
  /** Failed authentications per client address, an IPv6 one by its /64 (guessing tokens; see clientAddress.ts). */
  readonly authFailures: RateLimiter;
  readonly metrics: { rateLimited: { inc(labels: { kind: string }): void } };
}

export function createLimits(
  config: { rateLimit: number; authFailureLimit: number; accountConcurrency: number },
  metrics: Limits['metrics'],
  clock: Clock,
): Limits {
  return {
    requests: new RateLimiter(config.rateLimit, config.rateLimit * 2),
    concurrency: new AccountConcurrency(config.accountConcurrency, clock),
    authFailures: new RateLimiter(config.authFailureLimit / 60, config.authFailureLimit),
    metrics,
  };
}

/**
 * Refuses a client address that has failed authentication too often (429 4290), and returns what counts a failure:
 * wrap the error of a failed attempt in it before throwing. Every way in (tokens, the admin token, web sign-in) uses
 * it, so that guessing through one does not escape the limit of another.
 */
export function authGuard(limits: Limits, request: FastifyRequest) {
  const blocked = limits.authFailures.blockedFor(failureKeyOf(request.ip));
  if (blocked > 0) {
    limits.metrics.rateLimited.inc({ kind: 'auth_failures' });
    throw herald('tooManyRequests', { retryAfter: blocked });
  }
  return (error: HeraldError): HeraldError => authFailed(limits, request, error);
}

/** Counts a failed authentication against the client address; returns `error`, to be thrown. */
export function authFailed(limits: Limits, request: FastifyRequest, error: HeraldError): HeraldError {
  limits.authFailures.take(failureKeyOf(request.ip));
  return error;
}

/**
 * For a check whose cost is the attack (a password's scrypt): charges one failure to the client address before the
 * work starts, 429 4290 when none is left, and returns the refund for an attempt that turns out not to have failed.
 * A limit that counts failures only once they are known lets every concurrent attempt through: 60 wrong passwords
 * sent at once against a limit of 30 all got their scrypt and their 401.
 */
export function authChargeFirst(limits: Limits, request: FastifyRequest): { refund(): void } {
  const key = failureKeyOf(request.ip);
  const wait = limits.authFailures.take(key);
  if (wait > 0) {
    limits.metrics.rateLimited.inc({ kind: 'auth_failures' });
    throw herald('tooManyRequests', { retryAfter: wait });
  }
  return { refund: () => limits.authFailures.refund(key) };
}

/**
 * An onRequest hook that authenticates a client token before the body is read (spec section 5): no header ->
 * 401 4010, a header that is no live token -> 401 4012, a token of another type -> 403 4030, a blocked account ->
 * 403 4032; then the account's request rate (429 4290 with Retry-After), and one of the account's places (requests
 * at once, accountConcurrency.ts: waits briefly for one, else 429 4290). An address that keeps presenting bad tokens
 * gets 429 before any lookup.
 */
export function requireToken(ctx: AuthContext, allowed: readonly TokenType[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const presented = parseAuthorization(request.headers.authorization);
    if (presented === 'missing') throw herald('notAuthenticated');
    const failed = authGuard(ctx.limits, request);
    if (presented === 'invalid') throw failed(herald('badCredentials'));
    const token = await tokenFindLive(ctx.db, presented.keyId, ctx.clock.now());
    if (!token || !secretMatches(presented.secret, Buffer.from(token.secret_hash)))
      throw failed(herald('badCredentials'));
    if (!allowed.includes(token.type)) throw herald('accessDenied');
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
    request.principal = {
      accountId: token.account_id,
      tokenId: token.id,
      tokenType: token.type,
      trafficCenterId: token.traffic_center_id,
      accountChannels: token.account_channels,
      accountCurrency: token.account_currency,
      accountMaxRate: token.account_max_rate,
      sessionId: token.session_id,
      createdByUser: token.created_by_user,
    };
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its requireToken hook');
  return request.principal;
}

/** An onRequest hook for the operator API: `Authorization: Bearer <HERALD_ADMIN_TOKEN>` (see {@link requireBearer}). */
export function requireAdmin(ctx: { readonly adminToken: string | undefined; readonly limits: Limits }) {
  if (ctx.adminToken === undefined) {
    return async (): Promise<void> => {
      throw herald('adminApiDisabled');
    };
  }
  return requireBearer(ctx.adminToken, ctx.limits);
}

/**
 * An onRequest hook that takes `Authorization: Bearer <token>` (the operator and metrics tokens), compared in
 * constant time; failed attempts count against the client address like bad client tokens.
 */
export function requireBearer(token: string, limits: Limits) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw herald('notAuthenticated');
    const failed = authGuard(limits, request);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !sameSecret(match[1]!, token)) throw failed(herald('badCredentials'));
  };
}

/**
 * Compares a presented secret with the expected one in constant time: both are hashed first, so that neither the
 * content nor the length of the expected one shows in the time taken.
 */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
