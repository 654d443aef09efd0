import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, screenshot, startBrowserHerald } from '../helpers/browser.js';
import { ADMIN_TOKEN, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message } from '../messages/messageFixtures.js';

// The pages in Russian and English (DESIGN 11), in Debian's Chromium: a browser that prefers Russian gets Russian,
// the switch on every page shows English, and the choice outlives a reload; codes are shown in words.
describe.each([BROWSER_ENGINE])('the pages in Russian and English (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let close: () => Promise<void>;
  let account: TestAccount;
  let failedUuid: string;

  beforeAll(async () => {
    ({ t, browser, close } = await startBrowserHerald(engine));
    account = await t.createAccount({ senderNames: [['SMS', 'LangShop']] });
    // The simulators never deliver to a number ending in 7.
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { senderName: 'LangShop', destination: '79161300017' })],
    });
    failedUuid = sent.body.items[0].messageUuid;
    await waitFor(async () => {
      const reply = await t.call('GET', `/api/v1/message/${failedUuid}`, { token: account.traffic });
      return reply.body.status === 'undelivered' && reply.body.errorCode !== null;
    });
  });
  afterAll(async () => close?.());

  it("a message stopped while it waits for its window shows Herald's 9003 in words, in Russian", async () => {
    // An hour of the day twelve hours away (UTC, not the destination's): the message waits, and is stopped.
    const hour = (new Date().getUTCHours() + 12) % 24;
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        message('SMS', { senderName: 'LangShop', destination: '79161300011', hours: [hour], useLocalTime: false }),
      ],
    });
    const uuid = sent.body.items[0].messageUuid;
    const stop = await t.call('POST', '/api/v1/message/stop', { token: account.traffic, body: { uuids: [uuid] } });
    expect(stop.body.items[0].code).toBe(200);

    const app = await russianPage('/app');
    await app.getByLabel('Системный токен').fill(account.system);
    await app.getByRole('button', { name: 'Войти' }).click();
    await app.getByRole('heading', { name: 'Обзор', exact: true }).waitFor();
    await app.goto(`${t.url}/app/messages/${uuid}`);
    await app.getByTestId('message-error').waitFor();
    expect(await app.getByTestId('message-status').textContent()).toBe('не отправлено');
    expect(await app.getByTestId('message-error').textContent()).toBe(
      'Остановлено клиентом (код 9003) Ничего делать не нужно: отправка остановлена по запросу.',
    );
    await app.context().close();
  }, 120_000);

  const lang = (page: Page) => page.evaluate('document.documentElement.lang');
  /** A new page of a browser that prefers Russian, at `path`; close its context when done. */
  const russianPage = async (path: string): Promise<Page> => {
    const context = await browser.newContext({ locale: 'ru-RU' });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${t.url}${path}`);
    return page;
  };

  it('a browser preferring Russian gets the personal account in Russian, switches to English, keeps it', async () => {
    const app = await russianPage('/app');
    await app.getByRole('heading', { name: 'Вход в личный кабинет' }).waitFor();
    expect(await lang(app)).toBe('ru');
    // A refused sign-in: the API's 4012 in words, with what to do.
    await app.getByLabel('Системный токен').fill('not-a-token');
    await app.getByRole('button', { name: 'Войти' }).click();
    await app
      .getByRole('status')
      .filter({ hasText: 'Войти не удалось: Неверные учётные данные (4012). Проверьте логин и пароль или токен' })
      .waitFor();
    await app.getByLabel('Системный токен').fill(account.system);
    await app.getByRole('button', { name: 'Войти' }).click();
    await app.getByRole('heading', { name: 'Обзор', exact: true }).waitFor();
    await app.getByRole('navigation', { name: 'Главное меню' }).getByRole('link', { name: 'Сообщения' }).waitFor();

    // The failed message: its status and its error in words, with what to do, and the code smaller.
    await app.goto(`${t.url}/app/messages/${failedUuid}`);
    await app.getByRole('heading', { name: /^Сообщение / }).waitFor();
    expect(await app.getByTestId('message-status').textContent()).toBe('не доставлено');
    const error = app.getByTestId('message-error');
    expect(await error.textContent()).toMatch(/^Оператор связи не доставил сообщение \(код \d+\) Проверьте номер/);
    await screenshot(app, `${engine}-app-message-ru`);

    await app.getByRole('button', { name: 'English' }).click();
    await app.getByRole('heading', { name: /^Message / }).waitFor();
    expect(await lang(app)).toBe('en');
    expect(await app.getByTestId('message-status').textContent()).toBe('undelivered');
    expect(await error.textContent()).toMatch(/^The carrier did not deliver it \(code \d+\) Check the number/);

    await app.reload();
    await app.getByRole('heading', { name: /^Message / }).waitFor();
    expect(await lang(app)).toBe('en');
    await app.getByRole('button', { name: 'Русский' }).waitFor();
    await app.context().close();
  }, 120_000);

  it('a browser preferring Russian gets the console in Russian, switches to English, keeps it', async () => {
    const console = await russianPage('/admin/accounts');
    await console.getByRole('heading', { name: 'Консоль оператора' }).waitFor();
    expect(await lang(console)).toBe('ru');
    await console.getByLabel('Токен администратора').fill(ADMIN_TOKEN);
    await console.getByRole('button', { name: 'Войти' }).click();
    await console.getByRole('heading', { name: 'Аккаунты', exact: true }).waitFor();
    const accounts = console.getByRole('table', { name: 'Аккаунты' });
    await accounts.getByRole('cell', { name: 'активен' }).first().waitFor();
    await screenshot(console, `${engine}-admin-accounts-ru`);

    await console.getByRole('button', { name: 'English' }).click();
    await console.getByRole('heading', { name: 'Accounts', exact: true }).waitFor();
    await console.getByRole('table', { name: 'Accounts' }).getByRole('cell', { name: 'active' }).first().waitFor();
    await console.reload();
    await console.getByRole('heading', { name: 'Accounts', exact: true }).waitFor();
    expect(await lang(console)).toBe('en');
    await console.context().close();
  }, 120_000);

  it('a browser without a locale, or preferring English, gets English', async () => {
    for (const locale of [undefined, 'en-US']) {
      const context = await browser.newContext(locale ? { locale } : {});
      const page = await context.newPage();
      await page.goto(`${t.url}/app`);
      await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
      expect(await lang(page)).toBe('en');
      await context.close();
    }
  }, 60_000);
});
