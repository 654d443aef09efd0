import { createHash } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { herald } from '../errors/catalogue.js';
import { sameSecret } from '../util/secrets.js';

/**
 * The web pages' session cookies (docs/web.md, "Sessions"): the personal account's holds the two tokens of its
 * sign-in, the console's its admin session. Both are HttpOnly (a script of the page never reads them), SameSite=Strict
 * (the pages' HTML needs no cookie: every request that carries one is the page's own fetch, so Strict costs nothing
 * even when the page was opened from a link in a mail) and Secure when the request came over https (behind a proxy:
 * HERALD_TRUST_PROXY and X-Forwarded-Proto). Over plain http, as on localhost during development, Secure is left out,
 * or the browser would drop the cookie.
 */
export const SESSION_COOKIES = { app: 'herald_session', admin: 'herald_admin' } as const;

export type SessionCookieName = (typeof SESSION_COOKIES)[keyof typeof SESSION_COOKIES];

/**
 * The header that a request authenticated by a session cookie must carry unless it is a GET or HEAD: the session's
 * CSRF token, which the sign-in (and GET of the session) answers in `csrfToken`. Another site can make a browser
 * send the cookie (a form's POST, when a browser ignores SameSite) but can neither read the token nor set a header.
 */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of the named cookie of the request, if it has one. */
export function cookieOf(request: FastifyRequest, name: SessionCookieName): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || header === '') return undefined;
  const value = parseCookie(header)[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The CSRF token of a session: derived from the cookie's value (a hash: it tells nothing of the cookie), so the
 * server keeps nothing for it and it changes with every sign-in.
 */
export function csrfTokenOf(cookieValue: string): string {
  return createHash('sha256').update(`herald csrf\0${cookieValue}`).digest('base64url');
}

/** The session cookie each request was authenticated by, for the session's own routes (its CSRF token). */
const acceptedCookies = new WeakMap<FastifyRequest, string>();

/**
 * Takes `cookieValue` as what authenticates the request, once its session is found: a state-changing request without
 * the session's CSRF token is refused (403 4037); the cookie is then {@link sessionCookieOf} the request.
 */
export function acceptSessionCookie(request: FastifyRequest, cookieValue: string): void {
  if (!SAFE_METHODS.has(request.method)) {
    const presented = request.headers[CSRF_HEADER];
    if (!sameSecret(typeof presented === 'string' ? presented : '', csrfTokenOf(cookieValue)))
      throw herald('csrfRefused');
  }
  acceptedCookies.set(request, cookieValue);
}

/** The session cookie that authenticated the request, if one did (not an Authorization header). */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  return acceptedCookies.get(request);
}

/** Sets the session cookie until `expiresAt`. */
export function setSessionCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  name: SessionCookieName,
  value: string,
  expiresAt: Date,
  now: Date,
): void {
  writeCookie(reply, request, name, value, Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
}

/** Tells the browser to forget the session cookie (sign-out, or a session that has ended). */
export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, name: SessionCookieName): void {
  writeCookie(reply, request, name, '', 0);
}

function writeCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  name: SessionCookieName,
  value: string,
  maxAge: number,
): void {
  const secure = request.protocol === 'https';
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value, path: '/', httpOnly: true, sameSite: 'strict', secure, maxAge }),
  );
}

/**
 * An onSend hook for a sign-out route: the browser forgets the cookie whatever the answer (an ended session's
 * cookie is of no use, and a refused sign-out is most often one of a session that has already ended).
 */
export function clearingSessionCookie(name: SessionCookieName) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    clearSessionCookie(reply, request, name);
    return payload;
  };
}
