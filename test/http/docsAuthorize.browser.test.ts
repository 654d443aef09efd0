import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, launchBrowser } from '../helpers/browser.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

/**
 * The reference page at /docs as a client uses it: a token pasted whole into "Authorize" (bearerToken, which every
 * client operation lists beside Basic) works, for a read and for a send of the documented example.
 */
describe('the reference page at /docs takes a pasted token', () => {
  let t: TestHerald;
  let browser: Browser;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(BROWSER_ENGINE);
    account = await t.createAccount({
      senderNames: [
        ['SMS', 'Herald'],
        ['VIBER', 'Herald'],
      ],
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Expands the operation `operationId`, tries it out and returns the status of its answer. */
  async function execute(page: Page, operationId: string): Promise<string> {
    const operation = page.locator(`.opblock[id$="-${operationId}"]`);
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    return (await status.innerText()).trim();
  }

  it('is titled Herald API, fits a phone, and a pasted token gets 200 from a read and from a send', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${t.url}/docs`);
    await page.getByRole('heading', { name: /Herald Direct Messaging API/ }).waitFor();
    expect(await page.title()).toBe('Herald API');
    await page.locator('meta[name="viewport"]').waitFor({ state: 'attached' });
    expect(await page.locator('meta[name="viewport"]').getAttribute('content')).toBe(
      'width=device-width, initial-scale=1',
    );

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const bearer = page.locator('.auth-container').filter({ has: page.getByRole('heading', { name: /^bearerToken/ }) });
    await bearer.locator('input').fill(account.traffic);
    // Swagger UI's buttons are named by their aria-label ("Apply credentials"): found by their text.
    await bearer.locator('button', { hasText: 'Authorize' }).click();
    await bearer.locator('button', { hasText: 'Logout' }).waitFor();
    await page.locator('.modal-ux button', { hasText: 'Close' }).first().click();

    expect(await execute(page, 'balanceGet')).toBe('200');
    // The body Swagger UI fills in is the documented example (two messages).
    expect(await execute(page, 'messageSend')).toBe('200');
    const sent = await t.call('GET', '/api/v1/message', { token: account.traffic });
    expect(sent.body.total).toBe(2);
    await page.close();
  }, 120_000);
});
