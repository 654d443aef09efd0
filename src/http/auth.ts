import type { FastifyRequest } from 'fastify';
import { herald, type HeraldError } from '../errors/catalogue.js';
import type { Queryable } from '../db/db.js';
import { AccountConcurrency } from './accountConcurrency.js';
import { adminSessionFind } from './adminSessions.js';
import { failureKeyOf } from './clientAddress.js';
import { RateLimiter } from './rateLimit.js';
import { sameSecret } from '../util/secrets.js';
import { acceptSessionCookie, cookieOf, SESSION_COOKIES } from './sessionCookie.js';
import type { Clock } from '../util/clock.js';

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

/** Who attempts to authenticate: an HTTP request, or an SMPP bind's connection (its peer's address). */
export interface Client {
  readonly ip: string;
}

/**
 * Refuses a client address that has failed authentication too often (429 4290), and returns what counts a failure:
 * wrap the error of a failed attempt in it before throwing. Every way in (tokens, the admin token, web sign-in) uses
 * it, so that guessing through one does not escape the limit of another.
 */
export function authGuard(limits: Limits, request: Client) {
  const blocked = limits.authFailures.blockedFor(failureKeyOf(request.ip));
  if (blocked > 0) {
    limits.metrics.rateLimited.inc({ kind: 'auth_failures' });
    throw herald('tooManyRequests', { retryAfter: blocked });
  }
  return (error: HeraldError): HeraldError => authFailed(limits, request, error);
}

/** Counts a failed authentication against the client address; returns `error`, to be thrown. */
export function authFailed(limits: Limits, request: Client, error: HeraldError): HeraldError {
  limits.authFailures.take(failureKeyOf(request.ip));
  return error;
}

/**
 * For a check whose cost is the attack (a password's scrypt): charges one failure to the client address before the
 * work starts, 429 4290 when none is left, and returns the refund for an attempt that turns out not to have failed.
 * A limit that counts failures only once they are known lets every concurrent attempt through: 60 wrong passwords
 * sent at once against a limit of 30 all got their scrypt and their 401.
 */
export function authChargeFirst(limits: Limits, request: Client): { refund(): void } {
  const key = failureKeyOf(request.ip);
  const wait = limits.authFailures.take(key);
  if (wait > 0) {
    limits.metrics.rateLimited.inc({ kind: 'auth_failures' });
    throw herald('tooManyRequests', { retryAfter: wait });
  }
  return { refund: () => limits.authFailures.refund(key) };
}

/** What the operator API's authentication needs. */
export interface AdminAuthContext {
  readonly adminToken: string | undefined;
  readonly limits: Limits;
  readonly db: Queryable;
  readonly clock: Clock;
}

/** The console session that authenticated a request (its cookie), for the session's own routes. */
const adminSessions = new WeakMap<FastifyRequest, { id: string; expiresAt: Date }>();

export function adminSessionOf(request: FastifyRequest): { id: string; expiresAt: Date } | undefined {
  return adminSessions.get(request);
}

/**
 * An onRequest hook for the operator API: `Authorization: Bearer <HERALD_ADMIN_TOKEN>` (see {@link requireBearer}),
 * or, without that header, the console's session cookie (http/adminSessions.ts), whose requests other than GET
 * need its CSRF token (403 4037).
 */
export function requireAdmin(ctx: AdminAuthContext) {
  const adminToken = ctx.adminToken;
  if (adminToken === undefined) {
    return async (): Promise<void> => {
      throw herald('adminApiDisabled');
    };
  }
  const bearer = requireBearer(adminToken, ctx.limits);
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    const cookie = header === undefined || header.trim() === '' ? cookieOf(request, SESSION_COOKIES.admin) : undefined;
    if (cookie === undefined) return bearer(request);
    const failed = authGuard(ctx.limits, request);
    const session = await adminSessionFind(ctx.db, cookie, adminToken, ctx.clock.now());
    if (!session) throw failed(herald('badCredentials'));
    acceptSessionCookie(request, cookie);
    adminSessions.set(request, session);
  };
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
