import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, screenshot, startBrowserHerald, unlabelledControls } from '../helpers/browser.js';
import { ADMIN_TOKEN, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { insertMessage } from '../factories/rows.js';

/** What Intl puts between groups and before ₽ in Russian: no-break spaces, shown here as plain ones. */
const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ').trim();

// The operator console's money forms and its first page, as a Russian operator uses them (issue 34, problems 3 and
// 8), in Debian's Chromium at 1366x768 and at 390 px.
describe.each([BROWSER_ENGINE])('the console: money forms and the dashboard, in Russian (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let close: () => Promise<void>;
  let shop: TestAccount;

  beforeAll(async () => {
    ({ t, browser, close } = await startBrowserHerald(engine));
    shop = await named('Магазин', 1000);
  });
  /** An account named `name` with `balance` RUB. */
  async function named(name: string, balance: number): Promise<TestAccount> {
    const account = await t.createAccount({ balance });
    expect((await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { name })).status).toBe(200);
    return account;
  }
  afterAll(async () => close?.());

  /** A console page of a browser preferring Russian, signed in, at `path`; close its context when done. */
  async function russianConsole(path: string, width = 1366): Promise<Page> {
    const context = await browser.newContext({ locale: 'ru-RU', viewport: { width, height: 768 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${t.url}${path}`);
    await page.getByLabel('Токен администратора').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Войти' }).click();
    return page;
  }
  const balance = async () => (await t.admin('GET', `/admin/v1/accounts/${shop.id}`)).body.balance.RUB as number;
  const invalid = (field: Locator) => field.getAttribute('aria-invalid');

  it('reads "1000,50" as 1000.50, previews the balance before applying it, refuses "1.000" at the field', async () => {
    const page = await russianConsole(`/admin/accounts/${shop.id}`);
    await page.getByRole('heading', { name: 'Аккаунт Магазин' }).waitFor();
    const form = page.getByRole('form', { name: 'Изменить баланс' });
    const amount = form.getByLabel('Сумма');

    // Ambiguous: a thousand, or one? Refused under the field, nothing sent.
    await amount.fill('1.000');
    await form.getByRole('button', { name: 'Изменить баланс' }).click();
    await form.getByText('Можно прочитать двояко').waitFor();
    expect(await invalid(amount)).toBe('true');
    expect(await form.getByTestId('balance-preview').count()).toBe(0);

    // A Russian decimal comma: 1000.50, shown before anything happens.
    await amount.fill('1000,50');
    expect(await invalid(amount)).toBeNull();
    await form.getByRole('button', { name: 'Изменить баланс' }).click();
    const preview = form.getByTestId('balance-preview');
    await preview.waitFor();
    expect(plain(await preview.getByTestId('preview-amount').textContent())).toBe('+1 000,50 ₽');
    expect(plain(await preview.getByTestId('preview-balance-now').textContent())).toBe('1 000,00 ₽');
    expect(plain(await preview.getByTestId('preview-balance-after').textContent())).toBe('2 000,50 ₽');
    expect(await balance()).toBe(1000);
    await screenshot(page, `${engine}-admin-balance-preview-ru`);

    await preview.getByRole('button', { name: /^Зачислить 1\s000,50\s₽ на счёт Магазин$/ }).click();
    await waitFor(async () => (await balance()) === 1000.5 + 1000);
    await waitFor(async () => plain(await page.getByTestId('account-balance').textContent()) === '2 000,5 ₽');
    expect(await form.getByTestId('balance-preview').count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('sets a credit limit and blocks an account only after a confirmation naming it, on a phone', async () => {
    const page = await russianConsole(`/admin/accounts/${shop.id}`, 390);
    await page.getByRole('heading', { name: 'Аккаунт Магазин' }).waitFor();
    const limit = page.getByRole('form', { name: 'Кредитный лимит' });
    await limit.getByLabel('Кредитный лимит (RUB)').fill('500,5');
    await limit.getByRole('button', { name: 'Сохранить кредитный лимит' }).click();
    expect(plain(await limit.getByTestId('preview-limit-after').textContent())).toBe('500,50 ₽');
    expect((await t.admin('GET', `/admin/v1/accounts/${shop.id}`)).body.creditLimit).toBe(0);
    await limit.getByRole('button', { name: /^Установить кредитный лимит Магазин/ }).click();
    await waitFor(async () => (await t.admin('GET', `/admin/v1/accounts/${shop.id}`)).body.creditLimit === 500.5);

    await page.getByRole('button', { name: 'Заблокировать Магазин' }).click();
    const confirmation = page.getByTestId('block-confirmation');
    await confirmation.getByRole('heading', { name: `Заблокировать аккаунт Магазин (№${shop.id})?` }).waitFor();
    expect((await t.admin('GET', `/admin/v1/accounts/${shop.id}`)).body.status).toBe('active');
    // The previews fit a phone's width: nothing to scroll sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, `${engine}-admin-block-confirmation-ru-390`);
    await confirmation.getByRole('button', { name: 'Отмена' }).click();
    await page.getByRole('button', { name: 'Заблокировать Магазин' }).click();
    await page.getByTestId('block-confirmation').getByRole('button', { name: 'Заблокировать Магазин' }).click();
    await waitFor(async () => (await t.admin('GET', `/admin/v1/accounts/${shop.id}`)).body.status === 'blocked');
    await t.admin('PATCH', `/admin/v1/accounts/${shop.id}`, { status: 'active' });
    await page.context().close();
  }, 120_000);

  it('refuses a prefix tariff without a prefix at the field, and previews what a tariff applies to', async () => {
    const tariffs = async () => (await t.admin('GET', '/admin/v1/tariffs')).body.items as { prefix: string | null }[];
    const before = (await tariffs()).length;
    const page = await russianConsole('/admin/tariffs');
    const form = page.getByRole('form', { name: 'Добавить тариф' });
    await form.waitFor();
    await form.getByLabel('Цена за часть').fill('0,5');
    await form.getByRole('button', { name: 'Проверить тариф' }).click();
    const prefix = form.getByLabel('Префикс', { exact: true });
    await form.getByText('Укажите префикс или выберите «Любое направление».').waitFor();
    expect(await invalid(prefix)).toBe('true');
    expect(await form.getByTestId('tariff-preview').count()).toBe(0);
    expect(await tariffs()).toHaveLength(before);

    await prefix.fill('7916');
    await form.getByLabel('Id аккаунта').fill(String(shop.id));
    await form.getByText(`Магазин (№${shop.id})`).waitFor();
    await form.getByRole('button', { name: 'Проверить тариф' }).click();
    const preview = form.getByTestId('tariff-preview');
    await preview.waitFor();
    expect(await preview.getByTestId('preview-who').textContent()).toBe(`аккаунту Магазин (№${shop.id})`);
    expect(await preview.getByTestId('preview-what').textContent()).toBe(
      'сообщениям SMS на номера, начинающиеся с 7916',
    );
    expect(plain(await preview.getByTestId('preview-price').textContent())).toBe('0,50 ₽ за часть');
    await screenshot(page, `${engine}-admin-tariff-preview-ru`);
    expect(await tariffs()).toHaveLength(before);
    await preview.getByRole('button', { name: 'Создать тариф' }).click();
    await waitFor(async () => (await tariffs()).length === before + 1);
    expect((await t.admin('GET', '/admin/v1/tariffs')).body.items).toContainEqual(
      expect.objectContaining({ accountId: shop.id, prefix: '7916', price: 0.5, currency: 'RUB' }),
    );
    // The table names the account.
    await page
      .getByRole('table', { name: 'Тарифы' })
      .getByRole('link', { name: `Магазин (№${shop.id})` })
      .waitFor();
    await page.context().close();
  }, 120_000);

  it('opens on a dashboard of what needs the operator, and shows queues, errors and accounts by name', async () => {
    // A subscriber's SMS to a number nobody owns (while the SMSC is up), a sender name waiting for moderation, and an
    // SMS waiting 56 s whose due time a dead worker's lease moved an hour on (the queue showed "oldest 0 s").
    await t.simulators!.smsc.sendMo({ from: '79161250000', to: '4242', text: 'Hello' });
    await waitFor(async () => (await t.admin('GET', '/admin/v1/inbounds/unrouted')).body.total > 0);
    const registered = await t.call('POST', '/api/v1/sender-names', {
      token: shop.system,
      body: { channelType: 'SMS', name: 'ShopInfo', comment: 'our name' },
    });
    expect(registered.status).toBe(201);
    const now = Date.now();
    await insertMessage(t.testDb.db, {
      accountId: shop.id,
      createdAt: new Date(now - 56_000),
      dueAt: new Date(now + 3_600_000),
    });
    const low = await named('Почти пусто', 40);
    t.simulators!.smsc.setDown(true);
    try {
      await waitFor(async () => {
        const c = (await t.admin('GET', '/admin/v1/connectors')).body.items.find(
          (i: { id: string }) => i.id === 'sim-smsc',
        );
        return c && !c.available && c.lastError !== null && c.lastErrorAt !== null;
      });
      const page = await russianConsole('/admin');
      await page.getByRole('heading', { name: 'Обзор', exact: true }).waitFor();
      const age = plain(await page.getByTestId('dash-oldest').textContent());
      // 56 s and what the test took since: never 0.
      const seconds = /(\d+) мин (\d+) с/.exec(age);
      expect(
        seconds ? Number(seconds[1]) * 60 + Number(seconds[2]) : Number(/(\d+) с/.exec(age)![1]),
      ).toBeGreaterThanOrEqual(56);
      expect(await page.getByTestId('dash-down').textContent()).toMatch(/подключени. не работа/);
      await page.getByText('sim-smsc:').waitFor();
      expect(await page.getByTestId('dash-sender-names').textContent()).toMatch(/^[1-9]\d* им/);
      expect(await page.getByTestId('dash-holds').textContent()).toBe('0 открытых удержаний');
      const lowTable = page.getByRole('table', { name: 'Аккаунты, у которых заканчиваются средства' });
      await lowTable.getByRole('link', { name: `Почти пусто (№${low.id})` }).waitFor();
      expect(await unlabelledControls(page)).toEqual([]);
      await screenshot(page, `${engine}-admin-dashboard-ru`);

      // The queue's oldest on the Connectors page, and the last error with its time, in words.
      await page.getByRole('link', { name: 'Очередь отправки' }).click();
      await page.getByRole('heading', { name: 'Подключения', exact: true }).waitFor();
      expect(plain(await page.getByTestId('queue-waiting-oldest').textContent())).not.toBe('0 с');
      const smsc = page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'sim-smsc' }) })
        .first();
      const lastError = smsc.getByTestId('connector-last-error');
      await lastError.locator('time').waitFor();
      expect(await lastError.locator('time').textContent()).toMatch(/\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}/);
      await screenshot(page, `${engine}-admin-connectors-ru`);

      // Moderation names the account.
      await page.getByRole('navigation', { name: 'Главное меню' }).getByRole('link', { name: 'Модерация' }).click();
      await page
        .getByRole('link', { name: `Магазин (№${shop.id})` })
        .first()
        .waitFor();

      // The Unrouted page assigns the number to an account, as it tells the operator to.
      await page.goto(`${t.url}/admin/unrouted`);
      await page.getByRole('button', { name: 'Назначить номер 4242 аккаунту' }).click();
      const assign = page.getByTestId('assign-number');
      await assign.getByLabel('Аккаунт для 4242').fill(String(shop.id));
      await assign.getByText(`Магазин (№${shop.id})`, { exact: true }).waitFor();
      await assign.getByRole('button', { name: `Назначить 4242 аккаунту Магазин (№${shop.id})` }).click();
      await assign.getByText(`Номер 4242 назначен аккаунту Магазин (№${shop.id})`).waitFor();
      expect((await t.admin('GET', `/admin/v1/accounts/${shop.id}/inbound-numbers`)).body.items).toContainEqual(
        expect.objectContaining({ number: '4242', accountId: shop.id }),
      );
      await screenshot(page, `${engine}-admin-unrouted-assign-ru`);
      await page.context().close();

      // On a phone: the dashboard fits the width.
      const phone = await russianConsole('/admin', 390);
      await phone.getByTestId('dash-oldest').waitFor();
      expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(phone, `${engine}-admin-dashboard-ru-390`);
      await phone.context().close();
    } finally {
      t.simulators!.smsc.setDown(false);
    }
  }, 180_000);
});
