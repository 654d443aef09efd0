import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, screenshot, signInToApp, startBrowserHerald, unlabelledControls } from '../helpers/browser.js';
import type { TestAccount, TestHerald } from '../helpers/testHerald.js';
import { verifyHarness } from '../helpers/verify.js';
import { waitFor } from '../helpers/waitFor.js';

// The Verifiers page and the Statistics page's verification section, in Debian's Chromium: names as docs/web.md
// lists them. The Statistics page's range is the browser's last 30 days: Herald's clock runs from the real now.
describe.each([BROWSER_ENGINE])('verifiers in the web pages (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let account: TestAccount;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ t, browser, close } = await startBrowserHerald(engine));
    account = await t.createAccount({ senderNames: [['SMS', 'Shop']] });
  });
  afterAll(async () => close?.());

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  /** The text of the error line a control points to (aria-describedby), once it is marked invalid. */
  const errorOf = async (page: Page, control: ReturnType<Page['getByLabel']>): Promise<string> => {
    await waitFor(async () => (await control.getAttribute('aria-invalid')) === 'true');
    const ids = (await control.getAttribute('aria-describedby'))!.split(' ');
    const id = ids.find((i) => i.endsWith('-error'))!;
    return (await page.locator(`[id="${id}"]`).textContent())!;
  };

  it('a client creates a verifier (the API refusals beside their fields), edits it and deletes it', async () => {
    const app = await signInToApp(browser, t.url, account.system);
    await nav(app, 'Verifiers').click();
    await app.getByRole('heading', { name: 'Verifiers', exact: true }).waitFor();
    await app.getByRole('table', { name: 'Verifiers' }).getByText('No verifiers yet.').waitFor();

    await app.getByLabel('Name', { exact: true }).fill('Sign-in');
    await app.getByLabel('Brand').fill('Shop');
    await app.getByLabel('Code length').fill('6');
    const step1 = app.getByRole('group', { name: 'Step 1' });
    await step1.getByLabel('Channel').selectOption('FLASHCALL');
    await step1.getByLabel('Sender name').fill('any');
    await step1.getByLabel('Timeout').fill('30');
    await app.getByRole('button', { name: 'Add a step' }).click();
    const step2 = app.getByRole('group', { name: 'Step 2' });
    await step2.getByLabel('Sender name').fill('Nobody');
    expect(await unlabelledControls(app)).toEqual([]);

    // A FLASHCALL step sends 4-digit codes: the error is on the code length.
    await app.getByRole('button', { name: 'Create verifier' }).click();
    expect(await errorOf(app, app.getByLabel('Code length'))).toBe(
      'Invalid codeLength: 6 (a FLASHCALL step sends 4-digit codes)',
    );
    await app.getByRole('status').filter({ hasText: 'Not saved: Invalid codeLength' }).waitFor();
    // Changing the field clears its error.
    await app.getByLabel('Code length').fill('4');
    expect(await app.getByLabel('Code length').getAttribute('aria-invalid')).toBeNull();

    // A sender name that is not approved: the error is on step 2's sender name.
    await app.getByRole('button', { name: 'Create verifier' }).click();
    expect(await errorOf(app, step2.getByLabel('Sender name'))).toBe('No active sender name: (SMS, Nobody)');
    await screenshot(app, `${engine}-app-verifiers-error`);
    await step2.getByLabel('Sender name').fill('Shop');
    await app.getByRole('button', { name: 'Create verifier' }).click();
    const created = app.getByRole('status').filter({ hasText: 'Verifier Sign-in created' });
    await created.waitFor();
    const gatewayId = /gateway ([a-z0-9]{10})/.exec((await created.textContent())!)![1]!;

    const table = app.getByRole('table', { name: 'Verifiers' });
    const row = table.getByRole('row').filter({ hasText: gatewayId });
    await row.getByText('FLASHCALL (30 s) → SMS (60 s)').waitFor();
    const listed = await t.call('GET', `/api/v1/verifiers/${gatewayId}`, { token: account.system });
    expect(listed.body).toMatchObject({
      name: 'Sign-in',
      brand: 'Shop',
      codeLength: 4,
      codeTtl: 300,
      maxChecks: 3,
      workflow: [
        { channelType: 'FLASHCALL', senderName: 'any', timeout: 30 },
        { channelType: 'SMS', senderName: 'Shop', timeout: 60 },
      ],
    });

    // Edit: the form holds the verifier; step 1 removed, the lifetime changed.
    await app.getByRole('button', { name: 'Edit Sign-in' }).click();
    await app.getByRole('heading', { name: 'Edit Sign-in' }).waitFor();
    expect(await app.getByLabel('Brand').inputValue()).toBe('Shop');
    await app.getByRole('button', { name: 'Remove step 1' }).click();
    await app.getByRole('group', { name: 'Step 2' }).waitFor({ state: 'detached' });
    await app.getByLabel('Code lifetime').fill('600');
    await app.getByRole('button', { name: 'Save changes' }).click();
    await app.getByRole('status').filter({ hasText: 'Verifier Sign-in saved.' }).waitFor();
    await row.getByText('SMS (60 s)', { exact: true }).waitFor();
    await row.getByText('600 s').waitFor();
    expect(await unlabelledControls(app)).toEqual([]);
    await screenshot(app, `${engine}-app-verifiers`);

    await app.getByRole('button', { name: 'Delete Sign-in' }).click();
    await app.getByRole('button', { name: 'Confirm delete Sign-in' }).click();
    await app.getByRole('status').filter({ hasText: 'Verifier Sign-in deleted' }).waitFor();
    await table.getByText('No verifiers yet.').waitFor();
    const gone = await t.call('GET', `/api/v1/verifiers/${gatewayId}`, { token: account.system });
    expect(gone.status).toBe(404);
    await app.close();
  });

  it('the Statistics page shows sends, confirmations and conversion per verifier and channel', async () => {
    const { client, sent, check, codeOf } = verifyHarness(() => t);
    const c = await client({ workflow: [{ channelType: 'SMS', senderName: 'Shop', timeout: 60 }] });
    const confirmed = await sent(c, '79161600010');
    expect(await check(c, confirmed, await codeOf(confirmed))).toBe('CONFIRMED');
    await sent(c, '79161600020');

    const page = await signInToApp(browser, t.url, c.system);
    await nav(page, 'Statistics').click();
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    const byVerifier = page.getByRole('table', { name: 'Verification by verifier' });
    const row = byVerifier.getByRole('row').filter({ hasText: c.gatewayId });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([c.gatewayId, '2', '1', '50.0 %']);
    const sms = page
      .getByRole('table', { name: 'Verification by channel' })
      .getByRole('row')
      .filter({ hasText: 'SMS' });
    expect(await sms.getByRole('cell').allTextContents()).toEqual(['2', '1', '50.0 %']);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, `${engine}-app-statistics-verification`);
    await page.close();
  });
});
