import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from './principal.js';
import { authChargeFirst } from '../http/auth.js';
import { errorResponses } from '../http/schemas.js';
import {
  clearingSessionCookie,
  csrfTokenOf,
  SESSION_COOKIES,
  sessionCookieOf,
  setSessionCookie,
} from '../http/sessionCookie.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { signInWithPassword, signInWithToken } from './sessions.js';
import { sessionCookieValue } from './sessionCookie.js';
import { tokenRevokeSession, tokenSessionFind } from './tokenSql.js';

/** Who is signed in: the fields of both the sign-in's answer and GET of the session. */
const signedIn = {
  accountId: Type.Integer(),
  accountName: Type.String(),
  login: Type.Union([Type.String(), Type.Null()], {
    description: 'The user who signed in; null when signed in with a system API key',
  }),
};

const Session = Type.Object({
  ...signedIn,
  traffic: Type.String({ description: 'A new traffic token (TOKEN_1) of this session' }),
  system: Type.String({ description: 'A new system token (TOKEN_2) of this session' }),
  expiresAt: Type.String({ description: 'When both tokens stop working (12 hours after sign-in)' }),
  csrfToken: Type.String({
    description:
      "The session cookie's CSRF token: send it as `X-CSRF-Token` on every request other than GET that the cookie " +
      'authenticates (docs/web.md, "Sessions")',
  }),
});

const SessionNow = Type.Object({
  ...signedIn,
  expiresAt: Type.String({ description: 'When the session ends (12 hours after sign-in)' }),
  csrfToken: Type.Union([Type.String(), Type.Null()], {
    description: "The session cookie's CSRF token (`X-CSRF-Token`); null when asked with `Authorization: Basic`",
  }),
});

/**
 * The largest sign-in body: a login and a password of 200 characters (or a token of 400), every character written
 * as an escaped surrogate pair (`\uD83D\uDE00`, 12 bytes), is under 5 KiB; 8 KiB leaves room for white space.
 */
export const SIGN_IN_BODY_LIMIT = 8 * 1024;

/**
 * Sign-in and sign-out of the personal pages (/app, docs/web.md). A sign-in issues two session tokens of the
 * account, used like any TOKEN_1 and TOKEN_2 until they expire or the session is ended.
 */
export const sessionRoutes: Routes = (app, ctx) => {
  const tags = ['Web sessions'];

  app.post(
    '/app/v1/session',
    {
      // Anyone may send it: more than any body the schema allows (escapes included), far less than 16 MiB.
      bodyLimit: SIGN_IN_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Sign in with login and password, or with a system API key (TOKEN_2)',
        description:
          'Body: `{login, password}` or `{token}`. Wrong credentials, or a token that is not a live system API key, ' +
          '-> 401 4012, counted against the failed-authentication limit of the client address (429 4290, charged ' +
          'before the password is checked); a blocked account -> 403 4032; more sign-ins in progress than Herald ' +
          'hashes at once and queues -> 503 5035 with Retry-After; a body over 8 KiB -> 413 4130. ' +
          'No Authorization header.',
        security: [],
        body: Type.Object(
          {
            login: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            password: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            token: Type.Optional(
              Type.String({ minLength: 1, maxLength: 400, description: 'A system API key, as sent after `Basic `' }),
            ),
          },
          {
            additionalProperties: false,
            examples: [{ login: 'ivan.petrov@lavka.example', password: 'Лавка на Тверской 7' }],
          },
        ),
        response: { 201: Session, ...errorResponses(401, 403, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const { login, password, token } = request.body;
      if (token === undefined) {
        if (login === undefined) throw herald('missingField', { field: 'login' });
        if (password === undefined) throw herald('missingField', { field: 'password' });
      } else if (login !== undefined || password !== undefined) {
        throw herald('unprocessable', { reason: 'Give either login and password, or token' });
      }
      // Charged before the scrypt, given back unless the attempt fails: concurrent guesses cannot outrun the limit.
      const attempt = authChargeFirst(ctx.limits, request);
      const now = ctx.clock.now();
      const signIn =
        token === undefined
          ? signInWithPassword(ctx.db, ctx.passwords, login!, password!, now)
          : signInWithToken(ctx.db, token, now);
      // An attempt that never ran (503 5035: too many hashes waiting) or broke is not a failed authentication.
      const session = await signIn.catch((error: unknown) => {
        attempt.refund();
        throw error;
      });
      if (session === 'bad-credentials') throw herald('badCredentials');
      attempt.refund();
      if (session === 'blocked') throw herald('accountBlocked');
      const cookie = sessionCookieValue(session);
      setSessionCookie(reply, request, SESSION_COOKIES.app, cookie, session.expiresAt, now);
      return reply
        .status(201)
        .send({ ...session, expiresAt: isoUtc(session.expiresAt)!, csrfToken: csrfTokenOf(cookie) });
    },
  );

  app.get(
    '/app/v1/session',
    {
      onRequest: requireToken(ctx, ['system']),
      schema: {
        tags,
        summary: 'The session this browser is signed in to (by its cookie, or a session system token)',
        description:
          "What a page opened in a new tab needs: the account, the user, when the session ends and the cookie's " +
          'CSRF token. No session cookie -> 401 4010; an ended one -> 401 4012; an API key (not a session token) -> ' +
          '403 4030.',
        security: [{ basicToken: [] }, { sessionCookie: [] }],
        response: { 200: SessionNow, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      if (principal.sessionId === null) throw herald('accessDenied');
      const found = await tokenSessionFind(ctx.db, principal.tokenId);
      if (!found) throw herald('accessDenied');
      const cookie = sessionCookieOf(request);
      return {
        accountId: principal.accountId,
        accountName: found.account_name,
        login: found.login,
        expiresAt: isoUtc(found.expires_at)!,
        csrfToken: cookie === undefined ? null : csrfTokenOf(cookie),
      };
    },
  );

  app.delete(
    '/app/v1/session',
    {
      onRequest: requireToken(ctx, ['system']),
      onSend: clearingSessionCookie(SESSION_COOKIES.app),
      schema: {
        tags,
        summary: 'Sign out: revoke both tokens of the session whose system token (or cookie) makes the request',
        description:
          'A system API key (not a session token) -> 403 4030. The session cookie is cleared (`Set-Cookie` with ' +
          '`Max-Age=0`) whatever the answer; with the cookie, `X-CSRF-Token` is required (403 4037).',
        security: [{ basicToken: [] }, { sessionCookie: [] }],
        response: { 204: Type.Null(), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (principal.sessionId === null) throw herald('accessDenied');
      await tokenRevokeSession(ctx.db, principal.accountId, principal.sessionId, ctx.clock.now());
      return reply.status(204).send(null);
    },
  );
};
