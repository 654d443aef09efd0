import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, signInToApp, signInToConsole, startBrowserHerald } from '../helpers/browser.js';
import { ADMIN_TOKEN, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';

/** The texts of one column of a table, top to bottom. */
const columnTexts = (page: Page, table: string, column: number): Promise<string[]> =>
  page.getByRole('table', { name: table }).locator(`tbody tr > :nth-child(${column})`).allTextContents();

// Problem 7 of issue 34: ids cut to 8 characters, tables that could not be sorted, a Delete button out of sight at
// 1366 px, the Inbounds centers table broken by `td.row-actions {display: inline-flex}`.
describe.each([BROWSER_ENGINE])('tables (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let close: () => Promise<void>;
  let account: TestAccount;
  let uuids: string[];

  beforeAll(async () => {
    ({ t, browser, close } = await startBrowserHerald(engine));
    account = await t.createAccount({ senderNames: [['SMS', 'TableShop']] });
    // One batch: UUIDv7s of the same moment, which share their first characters.
    uuids = await t.send(
      account.traffic,
      ['79161300043', '79161300041', '79161300042'].map((destination) =>
        message('SMS', { senderName: 'TableShop', destination }),
      ),
    );
    for (const name of ['Zeta', 'Alpha', 'Mid_name_of_some_length']) {
      await t.call('POST', '/api/v1/sender-names', { token: account.system, body: { channelType: 'SMS', name } });
    }
    await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'Center one' } });
  });
  afterAll(async () => close?.());

  it('message ids are shown whole, so that ids of one moment can be told apart', async () => {
    const page = await signInToApp(browser, t.url, account.system);
    await page.goto(`${t.url}/app/messages`);
    for (const uuid of uuids) {
      const link = page.getByRole('link', { name: `Message ${uuid}`, exact: true });
      expect(await link.textContent()).toBe(uuid);
    }
    await page.getByRole('link', { name: `Message ${uuids[0]}` }).click();
    await page.getByRole('heading', { name: `Message ${uuids[0]}`, exact: true }).waitFor();
    await page.context().close();
  }, 120_000);

  it('a sortable header sorts the rows, says so in aria-sort, and a second press reverses them', async () => {
    const page = await signInToApp(browser, t.url, account.system);
    await page.goto(`${t.url}/app/messages`);
    const table = page.getByRole('table', { name: 'Messages' });
    await table.getByRole('link', { name: `Message ${uuids[2]}` }).waitFor();
    const header = table.getByRole('columnheader', { name: 'Destination' });
    expect(await header.getAttribute('aria-sort')).toBeNull();
    await header.getByRole('button', { name: 'Destination' }).click();
    expect(await header.getAttribute('aria-sort')).toBe('ascending');
    expect(await columnTexts(page, 'Messages', 5)).toEqual(['79161300041', '79161300042', '79161300043']);
    await header.getByRole('button', { name: 'Destination' }).press('Enter');
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    expect(await columnTexts(page, 'Messages', 5)).toEqual(['79161300043', '79161300042', '79161300041']);

    await page.goto(`${t.url}/app/sender-names`);
    const names = page.getByRole('table', { name: 'Sender names' });
    await names.getByRole('rowheader', { name: 'Zeta' }).waitFor();
    await names.getByRole('button', { name: 'Name' }).click();
    const sorted = await names.locator('tbody th').allTextContents();
    expect(sorted).toEqual([...sorted].sort((a, b) => a.localeCompare(b)));
    await page.context().close();
  }, 120_000);

  it('at 1366 px every Delete button of Sender names is in sight; Inbounds centers keep table cells', async () => {
    const page = await signInToApp(browser, t.url, account.system);
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${t.url}/app/sender-names`);
    const table = page.locator('.table-wrap[aria-label="Sender names"]');
    await table.getByRole('rowheader', { name: 'Zeta' }).waitFor();
    const region = (await table.boundingBox())!;
    for (const button of await table.getByRole('button', { name: /^Delete / }).all()) {
      const box = (await button.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(region.x + region.width);
    }

    await page.goto(`${t.url}/app/inbounds`);
    const centers = page.getByRole('table', { name: 'Traffic partitioning centers' });
    await centers.getByText('Center one').waitFor();
    // A string, evaluated in the page: the test code has no DOM types.
    const displays: string[] = await page.evaluate(
      `[...document.querySelectorAll('table td')].map((cell) => getComputedStyle(cell).display)`,
    );
    expect(new Set(displays)).toEqual(new Set(['table-cell']));
    await page.context().close();
  }, 120_000);

  it('the console Accounts table is sortable and shows its dates at 1280 px', async () => {
    const page = await signInToConsole(browser, t.url, ADMIN_TOKEN);
    await page.setViewportSize({ width: 1280, height: 768 });
    const table = page.locator('.table-wrap[aria-label="Accounts"]');
    const region = (await table.boundingBox())!;
    const created = table.getByRole('columnheader', { name: 'Created' });
    const box = (await created.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(region.x + region.width);
    await table.getByRole('button', { name: 'Id', exact: true }).click();
    await table.getByRole('button', { name: 'Id', exact: true }).click();
    expect(await created.getAttribute('aria-sort')).toBeNull();
    expect(await table.getByRole('columnheader', { name: 'Id', exact: true }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    const ids = (await table.locator('tbody tr > :first-child').allTextContents()).map(Number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    await page.context().close();
  }, 120_000);

  it('the console Moderation queue sorts, and reads itself again while it is shown', async () => {
    const page = await signInToConsole(browser, t.url, ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Moderation', exact: true }).click();
    const table = 'Sender names waiting for moderation';
    const rows = page.getByRole('table', { name: table }).locator('tbody tr');
    await rows.filter({ hasText: 'Zeta' }).waitFor();
    const names = page.locator('.table-wrap', { has: page.getByRole('table', { name: table }) });
    await names.getByRole('button', { name: 'Name', exact: true }).click();
    // Asked for as Zeta, then Alpha (an earlier test deletes the third).
    const mine = (await columnTexts(page, table, 1)).filter((n) => n === 'Zeta' || n === 'Alpha');
    expect(mine).toEqual(['Alpha', 'Zeta']);
    expect(await names.getByRole('columnheader', { name: 'Name', exact: true }).getAttribute('aria-sort')).toBe(
      'ascending',
    );
    // A client asks for a name while the operator looks: it appears without Refresh.
    await t.call('POST', '/api/v1/sender-names', {
      token: account.system,
      body: { channelType: 'SMS', name: 'Arrived' },
    });
    await rows.filter({ hasText: 'Arrived' }).waitFor({ timeout: 30_000 });
    await page.context().close();
  }, 120_000);
});
