import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, screenshot, startBrowserHerald } from '../helpers/browser.js';
import type { TestAccount, TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message } from '../messages/messageFixtures.js';

// Issue 34 in the personal account, as a Russian client sees it: why a message was not delivered, in the list and
// filtered by its code (problem 2); the Send form's parts, encoding and price, and its refusals at the field
// (problem 6).
describe.each([BROWSER_ENGINE])('costs and errors in the personal account (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let close: () => Promise<void>;
  let account: TestAccount;

  beforeAll(async () => {
    ({ t, browser, close } = await startBrowserHerald(engine));
    account = await t.createAccount({ senderNames: [['SMS', 'CostShop']], balance: 1000 });
    for (const tariff of [{ price: 2.5 }, { prefix: '7916', price: 1.25 }]) {
      const made = await t.admin('POST', '/admin/v1/tariffs', {
        accountId: account.id,
        channelType: 'SMS',
        currency: 'RUB',
        ...tariff,
      });
      expect(made.status).toBe(201);
    }
  });
  afterAll(async () => close?.());

  /** A signed-in page of a browser preferring Russian, at `width` x 768; close its context when done. */
  const russianApp = async (width = 1366): Promise<Page> => {
    const context = await browser.newContext({ locale: 'ru-RU', viewport: { width, height: 768 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${t.url}/app`);
    await page.getByLabel('Системный токен').fill(account.system);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.getByRole('heading', { name: 'Обзор', exact: true }).waitFor();
    return page;
  };
  /** The hint under a field, found by its control's label. */
  const hintOf = (page: Page, label: string) =>
    page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.hint');

  it('problem 2: the list shows each error in words, filters by error code, and the message page links there', async () => {
    // A message waiting for an hour twelve hours away (UTC) is stopped: 9003. Another is delivered: no error.
    const hour = (new Date().getUTCHours() + 12) % 24;
    const [stopped, delivered] = await t.send(account.traffic, [
      message('SMS', { senderName: 'CostShop', destination: '79161300021', hours: [hour], useLocalTime: false }),
      message('SMS', { senderName: 'CostShop', destination: '79161300022' }),
    ]);
    const stop = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [stopped] } });
    expect(stop.body.items[0].code).toBe(200);
    await waitFor(async () => {
      const reply = await t.call('GET', `/api/v1/message/${delivered}`, { token: account.traffic });
      return reply.body.status === 'delivered';
    });

    const page = await russianApp();
    await page.goto(`${t.url}/app/messages`);
    const table = page.getByRole('table', { name: 'Сообщения' });
    await table.getByRole('columnheader', { name: 'Ошибка' }).waitFor();
    const rowOf = (uuid: string) => table.getByRole('row').filter({ has: page.getByLabel(`Сообщение ${uuid}`) });
    await rowOf(stopped!).getByTestId('row-error').filter({ hasText: 'Остановлено клиентом (9003)' }).waitFor();
    expect(await rowOf(delivered!).getByTestId('row-error').textContent()).toBe('—');

    // The filter by code: its dates are filled in (the last 31 days), and only the stopped message is listed.
    await page.getByLabel('Ошибка', { exact: true }).selectOption({ label: '9003: Остановлено клиентом' });
    await page.getByRole('button', { name: 'Найти' }).click();
    await page.waitForURL(/error_code=9003/);
    expect(new URL(page.url()).searchParams.get('time_from')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await page.getByText('Страница 1 из 1 (всего 1)').waitFor();
    await rowOf(stopped!).waitFor();
    expect(await table.getByTestId('row-error').count()).toBe(1);
    await screenshot(page, `${engine}-app-messages-error-filter-ru`);

    // The message page says why, with what to do, and links to the messages with the same error.
    await page.goto(`${t.url}/app/messages/${stopped}`);
    await page
      .getByTestId('message-error')
      .filter({ hasText: 'Остановлено клиентом (код 9003) Ничего делать не нужно' })
      .waitFor();
    await page.getByRole('link', { name: 'Сообщения с этой ошибкой' }).click();
    await page.waitForURL(/\/app\/messages\?error_code=9003/);
    await rowOf(stopped!).waitFor();
    await page.context().close();
  }, 120_000);

  it('problem 6: the Send form counts SMS parts by GSM-7 and UCS-2 rules and shows the price', async () => {
    for (const width of [1366, 390]) {
      const page = await russianApp(width);
      await page.goto(`${t.url}/app/send`);
      await page.getByRole('heading', { name: 'Отправить сообщение' }).waitFor();
      const text = page.getByLabel('Текст', { exact: true });
      const hint = hintOf(page, 'Текст');

      await text.fill('Hello');
      await hint.filter({ hasText: '1 часть SMS · GSM-7 · 5 из 160 символов' }).waitFor();
      expect(await hint.textContent()).toContain('укажите номер получателя, чтобы увидеть стоимость');
      await page.getByLabel('Получатель').fill('+7 916 123-45-67');
      await hint.filter({ hasText: 'стоимость 1,25 ₽ (1,25 ₽ за часть)' }).waitFor();

      // 159 letters and a euro sign, an extension-table character that counts two septets: two parts of 153.
      await text.fill(`${'a'.repeat(159)}€`);
      await hint.filter({ hasText: '2 части SMS · GSM-7 · 161 из 306 символов' }).waitFor();
      await hint.filter({ hasText: 'стоимость 2,50 ₽ (1,25 ₽ за часть)' }).waitFor();

      // Cyrillic is UCS-2: 70 characters in one part, 67 each beyond; another prefix takes the default tariff.
      await text.fill('я'.repeat(71));
      await page.getByLabel('Получатель').fill('79261234567');
      await hint
        .filter({ hasText: '2 части SMS · UCS-2 (кириллица и другие символы вне GSM-7) · 71 из 134' })
        .waitFor();
      await hint.filter({ hasText: 'стоимость 5,00 ₽ (2,50 ₽ за часть)' }).waitFor();
      const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
      expect(overflow, `no sideways scroll at ${width} px`).toBe(false);
      await screenshot(page, `${engine}-app-send-estimate-ru-${width}`);
      await page.context().close();
    }
  }, 180_000);

  it('problem 6: a refusal of the Send form appears at the field it is about, which takes the focus', async () => {
    const page = await russianApp();
    await page.goto(`${t.url}/app/send`);
    await page.getByRole('heading', { name: 'Отправить сообщение' }).waitFor();
    const destination = page.getByLabel('Получатель');
    await destination.fill('12');
    await page.getByLabel('Текст', { exact: true }).fill('Hello');
    await page.getByRole('button', { name: 'Отправить', exact: true }).click();

    const error = page.locator('.field', { has: destination }).locator('.field-error');
    await error.filter({ hasText: 'Номер получателя недействителен' }).waitFor();
    expect(await destination.getAttribute('aria-invalid')).toBe('true');
    expect(await destination.evaluate((e: any) => e === (globalThis as any).document.activeElement)).toBe(true);
    await page.getByRole('status').filter({ hasText: 'Сообщение не принято: см. поле «Получатель».' }).waitFor();
    // Only the field at fault: the text's field has no error.
    expect(await page.locator('.field-error').count()).toBe(1);
    await screenshot(page, `${engine}-app-send-field-error-ru`);

    // Changing the value clears its error; a right number is accepted.
    await destination.fill('79161234567');
    expect(await page.locator('.field-error').count()).toBe(0);
    await page.getByRole('button', { name: 'Отправить', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Сообщение принято' }).waitFor();
    await page.context().close();
  }, 120_000);
});
