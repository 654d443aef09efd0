import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_ENGINE,
  launchBrowser,
  screenshot,
  signInToApp,
  signInToConsole,
  unlabelledControls,
} from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

// The Stop list pages (DESIGN 20) in Debian's Chromium: names as docs/web.md lists them.
describe.each([BROWSER_ENGINE])('stop list pages (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { clock: new TestClock(new Date(), { flowing: true }) });
    browser = await launchBrowser();
    account = await t.createAccount();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const open = async (page: Page): Promise<Page> => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stop list', exact: true }).click();
    await page.getByRole('heading', { name: 'Stop list', exact: true }).waitFor();
    return page;
  };
  const numbers = async (page: Page): Promise<string[]> =>
    page.getByRole('table', { name: 'Stop list' }).locator('tbody th').allTextContents();

  it('a client adds a number, imports a file with a refused row, filters, exports and deletes', async () => {
    const page = await open(await signInToApp(browser, t.url, account.system));
    await page.getByLabel('Number', { exact: true }).fill('+7 916 300-00-01');
    await page.getByLabel('Traffic type').selectOption('PROMO');
    await page.getByRole('button', { name: 'Add number' }).click();
    await page.getByRole('status').filter({ hasText: 'Number 79163000001 is on the stop list.' }).waitFor();
    await waitFor(async () => (await numbers(page)).includes('79163000001'));

    const dir = mkdtempSync(path.join(tmpdir(), 'herald-stop-list-'));
    const file = path.join(dir, 'stop.csv');
    writeFileSync(file, 'number,channelType\n79163000002,SMS\nnot a number,\n');
    await page.getByLabel('CSV file to import').setInputFiles(file);
    await page.getByRole('status').filter({ hasText: '1 added, 0 already listed, 1 refused.' }).waitFor();
    expect(await page.getByTestId('row-problem').allTextContents()).toEqual(['Invalid number: "not a number"']);
    await waitFor(async () => (await numbers(page)).length === 2);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, `${engine}-app-stop-list`);

    await page.getByLabel('Source').selectOption('import');
    await page.getByRole('button', { name: 'Search' }).click();
    await waitFor(async () => JSON.stringify(await numbers(page)) === '["79163000002"]');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const exported = await download;
    expect(exported.suggestedFilename()).toBe('stop-list.csv');

    await page.getByRole('button', { name: 'Delete 79163000002' }).click();
    await page.getByRole('button', { name: 'Confirm delete 79163000002' }).click();
    await page.getByRole('status').filter({ hasText: 'Entry of 79163000002 deleted.' }).waitFor();
    const left = await t.call('GET', '/api/v1/stop-list', { token: account.system });
    expect(left.body.items.map((e: { number: string }) => e.number)).toEqual(['79163000001']);
  });

  it("the operator adds to the operator's list from the console", async () => {
    const page = await open(await signInToConsole(browser, t.url, ADMIN_TOKEN));
    await page.getByLabel('Number', { exact: true }).fill('79163000009');
    await page.getByLabel('Comment').fill('premium range fraud');
    await page.getByRole('button', { name: 'Add number' }).click();
    await waitFor(async () => (await numbers(page)).includes('79163000009'));
    expect(await unlabelledControls(page)).toEqual([]);
    const entries = await t.admin('GET', '/admin/v1/stop-list');
    expect(entries.body.items).toEqual([
      expect.objectContaining({ number: '79163000009', source: 'operator', comment: 'premium range fraud' }),
    ]);
  });
});
