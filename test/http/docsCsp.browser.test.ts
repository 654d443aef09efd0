import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/http/server.js';
import { BROWSER_ENGINE, launchBrowser } from '../helpers/browser.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

describe('the reference page at /docs has a Content-Security-Policy and works under it', () => {
  let t: TestHerald;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestHerald(BROWSER_ENGINE);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sends the policy on the page and its assets, and on no other route', async () => {
    for (const path of [
      '/docs',
      '/docs/',
      '/docs/static/swagger-ui-bundle.js',
      '/docs/static/swagger-initializer.js',
      '/docs/static/theme/page.js',
      '/docs/json',
    ]) {
      const reply = await t.call('GET', path);
      expect(reply.status, path).toBeLessThan(400);
      expect(reply.headers.get('content-security-policy'), path).toBe(DOCS_CONTENT_SECURITY_POLICY);
    }
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect((await t.call('GET', '/api/v1/ping')).headers.get('content-security-policy')).toBeNull();
    expect((await t.call('GET', '/openapi.json')).headers.get('content-security-policy')).toBeNull();
  });

  it('renders the API and tries an operation in Chromium without a single violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(
      `document.addEventListener('securitypolicyviolation', (e) => ` +
        `console.error('Content-Security-Policy violation: ' + e.violatedDirective + ' ' + e.blockedURI))`,
    );
    await page.goto(`${t.url}/docs`);
    await page.getByRole('heading', { name: /Herald Direct Messaging API/ }).waitFor();
    // "Try it out" on the ping: the page calls Herald itself.
    const ping = page.locator('.opblock[id$="-pingGet"]');
    await ping.locator('.opblock-summary').click();
    await ping.getByRole('button', { name: 'Try it out' }).click();
    await ping.getByRole('button', { name: 'Execute' }).click();
    await ping.locator('.live-responses-table .response-col_status').filter({ hasText: '200' }).first().waitFor();
    expect(violations).toEqual([]);
    await page.close();
  });
});
