import type { Browser } from 'playwright-core';
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
import { ADMIN_TOKEN, startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

// The guard's pages in Debian's Chromium (DESIGN 20): names as docs/web.md lists them.
describe.each([BROWSER_ENGINE])('guard settings and consents pages (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestHerald(engine, { clock: new TestClock(new Date(), { flowing: true }) });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('narrows the settings in the personal account, shows a refused loosening; the operator sees both', async () => {
    const account = await t.createAccount({ guardDefaults: true });
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { dailySpendLimit: { RUB: 100 } });
    const app = await signInToApp(browser, t.url, account.system);
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await app.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    await app.getByTestId('effective-dailySpendLimit').filter({ hasText: '{"RUB":100}' }).waitFor();
    expect(await unlabelledControls(app)).toEqual([]);

    const editor = app.getByLabel('Settings (JSON)');
    await editor.fill('{"dailySpendLimit": {"RUB": 500}}');
    await app.getByRole('button', { name: 'Save settings' }).click();
    await app.getByText('Only the operator may loosen dailySpendLimit.RUB').waitFor();
    await editor.fill('{"dailySpendLimit": {"RUB": 40}}');
    await app.getByRole('button', { name: 'Save settings' }).click();
    await app.getByTestId('effective-dailySpendLimit').filter({ hasText: '{"RUB":40}' }).waitFor();
    await app
      .getByRole('table', { name: 'Settings audit' })
      .getByText(/^token:/)
      .waitFor();
    await screenshot(app, `${engine}-app-settings`);

    const console = await signInToConsole(browser, t.url, ADMIN_TOKEN);
    await console.goto(`${t.url}/admin/accounts/${account.id}`);
    await console.getByRole('heading', { name: 'Fraud guard and consent' }).waitFor();
    await console.getByTestId('effective-dailySpendLimit').filter({ hasText: '{"RUB":40}' }).waitFor();
    await console.getByLabel('Settings (JSON)').fill('{"dailySpendLimit": {"RUB": 100}, "flood": null}');
    await console.getByRole('button', { name: 'Save settings' }).click();
    await console.getByTestId('effective-flood').filter({ hasText: 'null' }).waitFor();
    const audit = console.getByRole('table', { name: 'Settings audit' });
    await waitFor(async () => (await audit.getByRole('row').count()) === 4);
    expect(await unlabelledControls(console)).toEqual([]);
    await screenshot(console, `${engine}-admin-account-guard`);
    await app.close();
    await console.close();
  }, 90_000);

  it('records, lists and filters consents', async () => {
    const account = await t.createAccount();
    const app = await signInToApp(browser, t.url, account.system);
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Consents', exact: true }).click();
    await app.getByRole('heading', { name: 'Consents', exact: true }).waitFor();
    expect(await unlabelledControls(app)).toEqual([]);
    for (const number of ['+7 916 123-45-67', '79031234560']) {
      await app.getByLabel('Number', { exact: true }).fill(number);
      await app.getByRole('button', { name: 'Record consent' }).click();
      await app.getByText(`Consent of ${number} recorded.`).waitFor();
    }
    const rows = app.getByRole('table', { name: 'Consents' }).getByRole('row');
    await waitFor(async () => (await rows.count()) === 3);
    await app.getByLabel('Filter by number').fill('79161234567');
    await waitFor(async () => (await rows.count()) === 2);
    expect(await rows.nth(1).textContent()).toContain('79161234567');
    await app.getByLabel('Number', { exact: true }).fill('not a number');
    await app.getByRole('button', { name: 'Record consent' }).click();
    await app.getByText('Invalid number: not a number').waitFor();
    await screenshot(app, `${engine}-app-consents`);
    await app.close();
  }, 90_000);
});
