import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { authGuard } from '../http/auth.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { RecentClicks } from './recentClicks.js';
import { shortLinkClick } from './shortLinkSql.js';
import { CODE_LENGTH, normalisedUrl } from './shortLinks.js';

/**
 * `GET <HERALD_SHORT_URL_BASE path>/<code>`: 302 to the original link, with the click recorded (and its `click`
 * callback event) first. Served when a short-link base is configured; a base on another host proxies here.
 * Anyone may click: a click is recorded once per link, client address (an IPv6 client by its /64) and minute (a
 * repeated one is redirected and records nothing), and an unknown code counts as a failed authentication of the
 * address (codes are unguessable; an address that guesses is limited like one guessing tokens).
 */
export const linkRoutes: Routes = (app, ctx) => {
  const base = ctx.config.shortUrlBase;
  if (!base) return;
  const prefix = new URL(base).pathname.replace(/\/+$/, '');
  const recent = new RecentClicks(ctx.clock);
  app.get(
    `${prefix}/:code`,
    {
      schema: {
        tags: ['Short links'],
        summary: 'Follow a short link',
        // Its own id: the path follows HERALD_SHORT_URL_BASE.
        operationId: 'shortLinkFollow',
        security: [],
        params: Type.Object({ code: Type.String() }),
        response: {
          302: Type.Null({ description: 'To the original link (Location)' }),
          ...errorResponses(404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { code } = request.params;
      if (!/^[A-Za-z0-9]+$/.test(code) || code.length !== CODE_LENGTH) throw herald('notFound', { what: 'Link' });
      const failed = authGuard(ctx.limits, request);
      const location = await recent.follow(code, request.ip, async () => {
        let link;
        try {
          link = await shortLinkClick(ctx.db, code, `${base}/${code}`, ctx.clock.now());
        } catch (error) {
          request.log.error({ err: error }, 'short link store unavailable');
          throw herald('shortenerUnavailable');
        }
        // Links stored before they were normalised may hold characters a Location header cannot carry.
        return link ? normalisedUrl(link.url) : undefined;
      });
      if (location === undefined) throw failed(herald('notFound', { what: 'Link' }));
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );
};
