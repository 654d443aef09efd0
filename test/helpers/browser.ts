import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`; .ci/run installs it): never a browser downloaded by a tool. */
export const CHROMIUM = process.env.HERALD_TEST_CHROMIUM ?? '/usr/bin/chromium';

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
  const page = await browser.newPage();
  await page.goto(`${url}/admin`);
  await page.getByLabel('Admin token').fill(adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', exact: true }).waitFor();
  return page;
}
