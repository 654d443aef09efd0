import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { herald } from '../errors/catalogue.js';
import type { Routes } from '../http/server.js';

/**
 * Where `vite build --config web/vite.config.ts` writes the pages: `<package root>/dist/public`. This file is two
 * levels below the root both as src/web/webRoutes.ts (tsx) and as dist/web/webRoutes.js (compiled). Not dist/web:
 * that is where tsc puts this module, and Vite empties its output folder.
 */
export const WEB_DIR = fileURLToPath(new URL('../../dist/public/', import.meta.url));

/** The URL prefix of the hashed assets (web/vite.config.ts writes them to dist/public/assets). */
export const ASSET_PREFIX = '/web-assets/';

/** The single-page applications: URL prefix and the folder of their index.html under {@link WEB_DIR}. */
const PAGES = ['app', 'admin'] as const;

/** Hashed names never change content: a year, and browsers need not revalidate. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current hashes: always revalidated, so that a new build is seen at once. */
const INDEX_CACHE = 'no-cache';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** A Vite asset name: one path segment, no leading dot (so neither `..` nor hidden files). */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * The pages' scripts may come only from Herald itself: the operator token sits in sessionStorage, so an injected
 * script must not run. Inline styles stay allowed for the charts' computed attributes.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the web pages built from web/ (docs/web.md): the personal account at /app and the operator console at
 * /admin. Any path under either prefix answers with that page's index.html (the pages route on the client);
 * `/web-assets/<name>` answers with a hashed asset. Without a build every page answers 503 (5034).
 * `dir` is for tests; Herald uses {@link WEB_DIR}.
 */
export function makeWebRoutes(dir: string = WEB_DIR): Routes {
  const assetsDir = join(dir, 'assets');
  return (app) => {
    const hidden = { schema: { hide: true } } as const;

    for (const page of PAGES) {
      const indexFile = join(dir, page, 'index.html');
      const serveIndex = async (request: FastifyRequest, reply: FastifyReply) => {
        const path = request.url.split('?')[0] ?? '';
        // /app/v1/... is the pages' own API: a GET there that no API route took is not a page.
        if (path.startsWith(`/${page}/v1/`) || /\.[A-Za-z0-9]+$/.test(path)) {
          throw herald('routeNotFound', { method: request.method, url: path });
        }
        const html = await readOrUndefined(indexFile);
        if (html === undefined) throw herald('webNotBuilt');
        return reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', INDEX_CACHE)
          .header('content-security-policy', CONTENT_SECURITY_POLICY)
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer')
          .send(html);
      };
      app.get(`/${page}`, hidden, serveIndex);
      app.get(`/${page}/*`, hidden, serveIndex);
    }

    app.get<{ Params: { '*': string } }>(`${ASSET_PREFIX}*`, hidden, async (request, reply) => {
      const name = request.params['*'];
      const type = CONTENT_TYPES[extname(name).toLowerCase()];
      const body =
        ASSET_NAME.test(name) && type !== undefined ? await readOrUndefined(join(assetsDir, name)) : undefined;
      if (body === undefined) {
        if ((await readOrUndefined(join(dir, 'app', 'index.html'))) === undefined) throw herald('webNotBuilt');
        throw herald('notFound', { what: `Asset ${name.slice(0, 200)}` });
      }
      return reply
        .header('content-type', type!)
        .header('cache-control', ASSET_CACHE)
        .header('x-content-type-options', 'nosniff')
        .send(body);
    });
  };
}

/** The routes of the built pages, from {@link WEB_DIR}. */
export const webRoutes: Routes = makeWebRoutes();

async function readOrUndefined(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR')
      return undefined;
    throw error;
  }
}
