import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.js';
import { makeWebRoutes, WEB_DIR } from '../../src/web/webRoutes.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

/**
 * The web pages as Herald serves them from the Vite build (npm install and npm run build make it): index.html for
 * every client-side route under /app and /admin, hashed assets under /web-assets/ with long cache headers, no way
 * out of the build folder, and 503 5034 without a build.
 */
const BUILT = existsSync(join(WEB_DIR, 'app', 'index.html')) && existsSync(join(WEB_DIR, 'admin', 'index.html'));

/** A raw GET that sends the path exactly as written (fetch would resolve `..` segments before sending). */
function rawGet(
  base: string,
  path: string,
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(ENGINES)('web pages (%s)', (engine) => {
  let t: TestHerald;
  beforeAll(async () => {
    t = await startTestHerald(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has a build to serve (npm run build)', () => {
    expect(BUILT, `no web build in ${WEB_DIR}: run npm run build`).toBe(true);
  });

  describe.runIf(BUILT)('with the build', () => {
    it.each([
      ['/app', 'Personal account'],
      ['/app/', 'Personal account'],
      ['/app/messages', 'Personal account'],
      ['/app/messages/0198a2b4-0000-7000-8000-000000000000?x=1', 'Personal account'],
      ['/admin', 'Operator console'],
      ['/admin/accounts/1', 'Operator console'],
      ['/admin/connectors', 'Operator console'],
    ])('GET %s answers the page (client-side routing)', async (path, title) => {
      const response = await fetch(t.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await response.text();
      expect(html).toContain(`<title>Herald · ${title}</title>`);
      expect(html).toMatch(/<script type="module"[^>]* src="\/web-assets\/[\w.-]+\.js"/);
    });

    it('serves the hashed assets with long cache headers and their content types', async () => {
      const html = await (await fetch(`${t.url}/app`)).text();
      const script = /src="(\/web-assets\/[\w.-]+\.js)"/.exec(html)![1]!;
      const style = /href="(\/web-assets\/[\w.-]+\.css)"/.exec(html)![1]!;
      for (const [path, type] of [
        [script, 'text/javascript; charset=utf-8'],
        [style, 'text/css; charset=utf-8'],
      ] as const) {
        const response = await fetch(t.url + path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('content-type')).toBe(type);
        expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect((await response.text()).length).toBeGreaterThan(100);
      }
      const head = await fetch(t.url + script, { method: 'HEAD' });
      expect(head.status).toBe(200);
    });

    it('answers 404 in the API format for a missing asset or an asset-like page path', async () => {
      for (const path of ['/web-assets/nope-12345678.js', '/web-assets/', '/app/favicon.ico', '/admin/robots.txt']) {
        const response = await fetch(t.url + path);
        expect(response.status, path).toBe(404);
        const body = (await response.json()) as { error: { code: number } };
        expect(body.error.code, path).toBeGreaterThanOrEqual(4040);
      }
    });

    it('serves nothing outside the assets folder', async () => {
      for (const path of [
        '/web-assets/../app/index.html',
        '/web-assets/..%2fapp%2findex.html',
        '/web-assets/%2e%2e%2f%2e%2e%2fpackage.json',
        '/web-assets/..%5c..%5cpackage.json',
        '/web-assets/.%2e/.%2e/.%2e/package.json',
        '/web-assets/%2fetc%2fpasswd',
        '/web-assets/..',
        '/app/..%2f..%2fpackage.json',
      ]) {
        const response = await rawGet(t.url, path);
        expect(response.body, path).not.toContain('"devDependencies"');
        expect(response.body, path).not.toContain('root:');
        if (path.startsWith('/web-assets/')) expect(response.status, path).toBe(404);
      }
    });

    it('leaves the pages out of the OpenAPI document', async () => {
      const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      const paths = Object.keys(doc.paths);
      expect(
        paths.some(
          (p) =>
            p === '/app' ||
            p.startsWith('/app/*') ||
            p === '/admin' ||
            p.startsWith('/admin/*') ||
            p.startsWith('/web-assets'),
        ),
      ).toBe(false);
    });

    it('does not answer the pages API paths with a page', async () => {
      const response = await fetch(`${t.url}/app/v1/no-such-operation`);
      expect(response.status).toBe(404);
    });
  });

  it('answers 503 5034 with what to do when the pages are not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'herald-web-'));
    const server = await buildServer(t.herald.ctx, [makeWebRoutes(empty)]);
    try {
      for (const url of ['/app', '/admin/moderation', '/web-assets/app-12345678.js']) {
        const response = await server.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(503);
        expect(response.json(), url).toEqual({
          error: { code: 5034, msg: 'Web pages are not built: run npm run build' },
        });
      }
    } finally {
      await server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
