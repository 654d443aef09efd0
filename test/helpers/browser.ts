import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { TestClock } from './clock.js';
import type { Engine } from './engines.js';
import { startTestHerald, type TestHerald } from './testHerald.js';

/** Debian's Chromium (`apt-get install -y chromium`; .ci/run installs it): never a browser downloaded by a tool. */
export const CHROMIUM = process.env.HERALD_TEST_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The one engine of the browser tests (`*.browser.test.ts`): a page does not differ by engine, and the API tests
 * under the pages run on both. PGlite, which every run has; no browser test needs PostgreSQL. On both engines the
 * five files of test/web took 85-105 s one after the other, on PGlite alone 45-56 s (the same busy machine).
 */
export const BROWSER_ENGINE: Engine = 'pglite';

/** Where browser tests keep their screenshots (a test artifact, not committed). */
export const SCREENSHOTS = path.resolve('test-artifacts/screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set HERALD_TEST_CHROMIUM)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** A full-page screenshot under test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Form controls without an accessible name (a label, aria-label or aria-labelledby): there should be none. */
export const unlabelledControls = (page: Page): Promise<string[]> =>
  // A string, evaluated in the page: the test code has no DOM types.
  page.evaluate(
    `[...document.querySelectorAll('input, select, textarea')]
    .filter((e) => e.type !== 'hidden' && !e.labels?.length && !e.getAttribute('aria-label') && ` +
      `!e.getAttribute('aria-labelledby'))
    .map((e) => e.outerHTML.slice(0, 120))`,
  );

/** A page of the operator console at `url`, signed in with the admin token, on its Accounts page. */
export async function signInToConsole(browser: Browser, url: string, adminToken: string): Promise<Page> {
  // A context of its own, in which a test may open more tabs (page.context().newPage()) that share the session.
  const page = await (await browser.newContext()).newPage();
  // The console opens on its dashboard; the tests start from the accounts.
  await page.goto(`${url}/admin/accounts`);
  await page.getByLabel('Admin token').fill(adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', exact: true }).waitFor();
  return page;
}

/** A page of the personal account at `url`, signed in with a system token (TOKEN_2), on its Dashboard. */
export async function signInToApp(browser: Browser, url: string, systemToken: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  // A busy machine (one core kept busy beside the suite) took the first page past Playwright's 30 s once.
  page.setDefaultTimeout(60_000);
  await page.goto(`${url}/app`);
  await page.getByLabel('System token').fill(systemToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  return page;
}

/**
 * A Herald that runs the whole pipeline against the carrier simulators (receipts after 20 ms) on a clock that flows
 * from the real now, since pages count their days and offer sender names by the browser's clock, and a browser;
 * `close` ends both.
 */
export async function startBrowserHerald(
  engine: Engine,
): Promise<{ t: TestHerald; browser: Browser; close(): Promise<void> }> {
  const t = await startTestHerald(engine, {
    delivery: { delayMs: 20 },
    clock: new TestClock(new Date(), { flowing: true }),
  });
  const browser = await launchBrowser();
  return {
    t,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
