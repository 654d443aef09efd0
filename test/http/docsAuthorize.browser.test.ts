import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, launchBrowser } from '../helpers/browser.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

/**
 * The reference page at /docs as a client uses it: a token pasted whole into "Authorize" under basicToken, as
 * clients send it (`Basic <token>`, or the bare token), works, for a read and for a send of the documented example.
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

  /** Opens /docs in a browser of `locale` at `width` px and pastes `value` into the Authorize dialog's basicToken. */
  async function authorized(
    value: string,
    options: { locale?: string; width?: number } = {},
  ): Promise<{ page: Page; description: string }> {
    const context = await browser.newContext({
      ...(options.locale ? { locale: options.locale } : {}),
      viewport: { width: options.width ?? 1366, height: 768 },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${t.url}/docs`);
    await page.getByRole('heading', { name: /Herald Direct Messaging API/ }).waitFor();
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const basic = page.locator('.auth-container').filter({ has: page.getByRole('heading', { name: /^basicToken/ }) });
    // The whole token, as clients send it: no user name and password to split it into.
    expect(await basic.locator('input[type="password"]').count()).toBeLessThanOrEqual(1);
    const description = await basic.innerText();
    await basic.locator('input').fill(value);
    // Swagger UI's buttons are named by their aria-label ("Apply credentials"): found by their text.
    await basic.locator('button', { hasText: 'Authorize' }).click();
    await basic.locator('button', { hasText: 'Logout' }).waitFor();
    await page.locator('.modal-ux button', { hasText: 'Close' }).first().click();
    return { page, description };
  }

  it('is titled Herald API reference, fits a phone, and a token pasted as clients send it gets 200', async () => {
    const { page } = await authorized(`Basic ${account.traffic}`, { width: 390 });
    expect(await page.title()).toBe('Herald API reference');
    await page.locator('meta[name="viewport"]').waitFor({ state: 'attached' });
    expect(await page.locator('meta[name="viewport"]').getAttribute('content')).toBe(
      'width=device-width, initial-scale=1',
    );
    // At 390 px the page is laid out at the phone's width, not at 980 px.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await execute(page, 'balanceGet')).toBe('200');
    // The body Swagger UI fills in is the documented example (two messages).
    expect(await execute(page, 'messageSend')).toBe('200');
    const sent = await t.call('GET', '/api/v1/message', { token: account.traffic });
    expect(sent.body.total).toBe(2);
    await page.context().close();
  }, 120_000);

  it('takes the bare token too, and speaks Russian to a Russian browser', async () => {
    const { page, description } = await authorized(account.traffic, { locale: 'ru-RU' });
    expect(await page.title()).toBe('Справочник API Herald');
    expect(description).toContain('Вставьте токен целиком');
    expect(await execute(page, 'balanceGet')).toBe('200');
    await page.context().close();
  }, 120_000);
});
