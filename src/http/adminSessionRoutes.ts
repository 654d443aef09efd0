import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { adminSessionEnd, adminSessionStart } from './adminSessions.js';
import { adminSessionOf, authGuard, requireAdmin } from './auth.js';
import { sameSecret } from '../util/secrets.js';
import { errorResponses } from './schemas.js';
import type { Routes } from './server.js';
import {
  clearingSessionCookie,
  csrfTokenOf,
  SESSION_COOKIES,
  sessionCookieOf,
  setSessionCookie,
} from './sessionCookie.js';
import { isoUtc } from '../util/time.js';

const ConsoleSession = Type.Object({
  expiresAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When the console session ends (12 hours after sign-in); null when asked with the Bearer token',
  }),
  csrfToken: Type.Union([Type.String(), Type.Null()], {
    description: "The cookie's CSRF token: send it as `X-CSRF-Token` on every request other than GET; null with Bearer",
  }),
});

/**
 * Sign-in and sign-out of the operator console (/admin, docs/web.md "Sessions"): the admin token is given once and
 * a session cookie (`herald_admin`, HttpOnly, SameSite=Strict) stands for it on the operator API for 12 hours, in
 * every tab of the browser. `Authorization: Bearer <HERALD_ADMIN_TOKEN>` works as before.
 */
export const adminSessionRoutes: Routes = (app, ctx) => {
  const tags = ['Web sessions'];
  const security: Record<string, string[]>[] = [{ adminToken: [] }, { adminSessionCookie: [] }];

  app.post(
    '/admin/v1/session',
    {
      // Anyone may send it: a token of 400 characters, each escaped as a surrogate pair (12 bytes), is under 5 KiB.
      bodyLimit: 8 * 1024,
      schema: {
        tags,
        summary: "Sign in to the operator console with the admin token: sets the console's session cookie",
        description:
          'Body `{token}`: HERALD_ADMIN_TOKEN. A wrong token -> 401 4012, counted against the failed-authentication ' +
          'limit of the client address (429 4290); the operator API switched off -> 503 5032. No Authorization header.',
        security: [],
        body: Type.Object(
          { token: Type.String({ minLength: 1, maxLength: 400 }) },
          { additionalProperties: false, examples: [{ token: 'kX9vQ2mZ7pL4wR8tN3bY6cH1sF5dJ0gA' }] },
        ),
        response: { 201: ConsoleSession, ...errorResponses(401, 429, 503) },
      },
    },
    async (request, reply) => {
      if (ctx.adminToken === undefined) throw herald('adminApiDisabled');
      const failed = authGuard(ctx.limits, request);
      if (!sameSecret(request.body.token, ctx.adminToken)) throw failed(herald('badCredentials'));
      const now = ctx.clock.now();
      const session = await adminSessionStart(ctx.db, ctx.adminToken, now);
      setSessionCookie(reply, request, SESSION_COOKIES.admin, session.cookie, session.expiresAt, now);
      return reply.status(201).send({ expiresAt: isoUtc(session.expiresAt)!, csrfToken: csrfTokenOf(session.cookie) });
    },
  );

  app.get(
    '/admin/v1/session',
    {
      onRequest: requireAdmin(ctx),
      schema: {
        tags,
        summary: 'The console session this browser is signed in to (a new tab asks it)',
        description: 'No cookie and no token -> 401 4010; an ended or expired session -> 401 4012.',
        security,
        response: { 200: ConsoleSession },
      },
    },
    async (request) => {
      const session = adminSessionOf(request);
      const cookie = sessionCookieOf(request);
      return {
        expiresAt: session ? isoUtc(session.expiresAt)! : null,
        csrfToken: cookie === undefined ? null : csrfTokenOf(cookie),
      };
    },
  );

  app.delete(
    '/admin/v1/session',
    {
      onRequest: requireAdmin(ctx),
      onSend: clearingSessionCookie(SESSION_COOKIES.admin),
      schema: {
        tags,
        summary: 'Sign out of the operator console: ends the session of the cookie and clears it',
        description:
          'With the cookie, `X-CSRF-Token` is required (403 4037). With the Bearer token: nothing to end, 204.',
        security,
        response: { 204: Type.Null(), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const session = adminSessionOf(request);
      if (session) await adminSessionEnd(ctx.db, session.id, ctx.clock.now());
      return reply.status(204).send(null);
    },
  );
};
