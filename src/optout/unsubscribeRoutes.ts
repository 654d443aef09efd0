import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  CODE_LENGTH,
  shortLinkUnsubscribeConfirmed,
  shortLinkUnsubscribeTarget,
  UNSUBSCRIBE_PATH,
  type UnsubscribeTarget,
} from '../links/index.js';
import { authGuard } from '../http/auth.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import { isChannel } from '../shared/channels.js';
import { optOutList } from './optOut.js';
import {
  maskedNumber,
  PAGE_CONTENT_SECURITY_POLICY,
  type PageKind,
  pageLanguage,
  unsubscribePage,
} from './unsubscribePage.js';

const CODE = new RegExp(`^[A-Za-z0-9]{${CODE_LENGTH}}$`);
/** The largest form the page posts: none (its one button has no name); a client may send a little. */
const FORM_LIMIT = 1024;

/** The page, in HTML; an unknown code is the API's 404 4040, and an address that guesses codes is limited (429). */
const PAGE_RESPONSES = {
  200: { description: 'The page', content: { 'text/html': { schema: Type.String() } } },
  ...errorResponses(404, 429),
};

/**
 * `<HERALD_SHORT_URL_BASE path>/u/<code>`, the unsubscribe link `{unsubscribe}` becomes (DESIGN 20). GET shows a page
 * that asks for one confirming click and changes nothing: mail and messenger link scanners open links, and must not
 * opt anyone out. The click POSTs the page's form: the message's subscriber is listed on its account's list (source
 * `link`, the message's channel and sender name, PROMO and SERVICE), and the page says so. An unknown code is 404
 * 4040 and counts as a failed authentication of the address, as short links' do. Served when a short-link base is
 * configured.
 */
export const unsubscribeRoutes: Routes = (app, ctx) => {
  const base = ctx.config.shortUrlBase;
  if (!base) return;
  const path = `${new URL(base).pathname.replace(/\/+$/, '')}/${UNSUBSCRIBE_PATH}/:code`;
  const params = Type.Object({ code: Type.String() });

  app.get(
    path,
    {
      schema: {
        tags: ['Short links'],
        summary: 'An unsubscribe link: the page that asks to confirm',
        // Its own id: the path follows HERALD_SHORT_URL_BASE.
        operationId: 'unsubscribeLinkGet',
        security: [],
        params,
        response: PAGE_RESPONSES,
      },
    },
    async (request, reply) => {
      const target = await find(ctx, request, request.params.code);
      return page(request, reply, target.last_click_at ? 'done' : 'confirm', target);
    },
  );

  // The page's form posts application/x-www-form-urlencoded, which no API route takes: a parser of its own, here
  // only, that reads nothing of the body (the code in the path is all there is to know).
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, _body, done) => done(null, undefined),
    );
    scope.post(
      path,
      {
        schema: {
          tags: ['Short links'],
          summary: 'An unsubscribe link: the confirming click',
          operationId: 'unsubscribeLinkConfirm',
          security: [],
          params,
          response: PAGE_RESPONSES,
        },
        bodyLimit: FORM_LIMIT,
      },
      async (request, reply) => {
        const { code } = request.params;
        const target = await ctx.db.transaction(async (tx) => {
          const found = await find(ctx, request, code, tx);
          if (!isChannel(found.channel_type)) return found;
          const at = ctx.clock.now();
          const added = await optOutList(tx, found.account_id, {
            number: found.destination,
            channelType: found.channel_type,
            senderName: found.sender_name,
            source: 'link',
            comment: `link in message ${found.message_id}`,
            at,
          });
          await shortLinkUnsubscribeConfirmed(tx, code, at);
          if (added) ctx.metrics.optOuts.inc({ source: 'link', channel: found.channel_type });
          return found;
        });
        return page(request, reply, 'done', target);
      },
    );
  });
};

/**
 * The unsubscribe link of `code`. An unknown one is 404 4040 `Link not found`, as an unknown short link is, and
 * counts as a failed authentication of the client's address.
 */
async function find(
  ctx: AppContext,
  request: FastifyRequest,
  code: string,
  db: Queryable = ctx.db,
): Promise<UnsubscribeTarget> {
  const failed = authGuard(ctx.limits, request);
  const target = CODE.test(code) ? await shortLinkUnsubscribeTarget(db, code) : undefined;
  if (!target) throw failed(herald('notFound', { what: 'Link' }));
  return target;
}

function page(request: FastifyRequest, reply: FastifyReply, kind: PageKind, target: UnsubscribeTarget): FastifyReply {
  const lang = pageLanguage(request.headers['accept-language']);
  const html = unsubscribePage(lang, kind, target.sender_name, maskedNumber(target.destination));
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex')
    .send(html);
}
