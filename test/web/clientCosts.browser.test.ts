import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, screenshot, startBrowserHerald } from '../helpers/browser.js';
import type { TestAccount, TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message } from '../messages/messageFixtures.js';

// Issue 34 in the personal account, as a Russian client sees it: why a message was not delivered, in the list and
// filtered by its code (problem 2); the Send form's parts, encoding and price, and its refusals at the field
// (problem 6); a dispatch's costs before it is filled, an empty substitution caught, refusals in words and retried,
// and its send window (problem 4); the dashboard's money and delivery rate by the reader's days (problem 10).
describe.each([BROWSER_ENGINE])('costs and errors in the personal account (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let close: () => Promise<void>;
  let account: TestAccount;

  /** An account with the sender name CostShop, SMS at 2.50 RUB a part and 1.25 RUB to +7 916. */
  const pricedAccount = async (balance: number): Promise<TestAccount> => {
    const made = await t.createAccount({ senderNames: [['SMS', 'CostShop']], balance });
    for (const tariff of [{ price: 2.5 }, { prefix: '7916', price: 1.25 }]) {
      const reply = await t.admin('POST', '/admin/v1/tariffs', {
        accountId: made.id,
        channelType: 'SMS',
        currency: 'RUB',
        ...tariff,
      });
      expect(reply.status).toBe(201);
    }
    return made;
  };

  beforeAll(async () => {
    ({ t, browser, close } = await startBrowserHerald(engine));
    account = await pricedAccount(1000);
  });
  afterAll(async () => close?.());

  /**
   * A signed-in page of a browser preferring Russian, at `width` x 768 (in `timezoneId`, else the machine's time
   * zone); close its context when done.
   */
  const russianApp = async (width = 1366, as = account, timezoneId?: string): Promise<Page> => {
    const context = await browser.newContext({
      locale: 'ru-RU',
      viewport: { width, height: 768 },
      ...(timezoneId ? { timezoneId } : {}),
    });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${t.url}/app`);
    await page.getByLabel('Системный токен').fill(as.system);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.getByRole('heading', { name: 'Обзор', exact: true }).waitFor();
    return page;
  };
  /** The hint under a field, found by its control's label. */
  const hintOf = (page: Page, label: string) =>
    page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.hint');

  it('problem 2: the list shows errors in words, filters by error code, the message page links there', async () => {
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

  it('problem 4: a dispatch prices its rows, flags an empty cell, says refusals in words, retries them', async () => {
    // 5 RUB at 1.25 a part: four of the six rows fit.
    const poor = await pricedAccount(5);
    const page = await russianApp(1366, poor);
    await page.goto(`${t.url}/app/dispatches`);
    await page.getByLabel('Название рассылки').fill('Новый год');
    const text = page.getByLabel('Текст', { exact: true });
    await text.fill('С наступающим, {name}!');
    // The text as written, before any substitution: its parts and encoding.
    await hintOf(page, 'Текст').filter({ hasText: 'Сообщение без подстановок: 1 часть SMS · UCS-2' }).waitFor();
    // A scheduled start and a window: tomorrow at 10:00, from 9:00 to 21:00, in Moscow time.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const two = (n: number) => String(n).padStart(2, '0');
    const day = `${tomorrow.getFullYear()}-${two(tomorrow.getMonth() + 1)}-${two(tomorrow.getDate())}`;
    await page.getByLabel('Начать', { exact: true }).fill(`${day}T10:00`);
    await page.getByLabel('Отправлять с').selectOption('9');
    await page.getByLabel('Отправлять до').selectOption('21');
    await page.getByLabel('По местному времени получателя').uncheck();
    await page.getByRole('button', { name: 'Создать рассылку' }).click();
    await page.getByRole('heading', { name: 'Рассылка Новый год' }).waitFor();
    const dispatchId = page.url().split('/').pop()!;
    const created = await t.call('GET', `/api/v1/dispatch/${dispatchId}`, { token: poor.traffic });
    expect(created.body).toMatchObject({ localSendTime: `${day} 10:00:00`, useLocalTime: false });

    const rows = [
      'phone;name',
      '79161230101;Анна',
      '79161230102;',
      ...[3, 4, 5, 6, 7].map((n) => `7916123010${n};Гость ${n}`),
    ];
    await page.getByLabel('Файл CSV').setInputFiles({
      name: 'guests.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${rows.join('\n')}\n`),
    });
    const preview = page.getByRole('table', { name: 'Предпросмотр получателей' });
    // The empty cell is a problem of its row: it is not sent as "С наступающим, !".
    await preview
      .getByRole('row')
      .filter({ hasText: '79161230102' })
      .getByTestId('row-problem')
      .filter({ hasText: 'Нет значения для {name}' })
      .waitFor();
    await page.getByTestId('upload-estimate').filter({ hasText: 'Оценка: 6 сообщений, 6 частей, 7,50 ₽.' }).waitFor();
    await screenshot(page, `${engine}-app-dispatch-preview-ru`);

    await page.getByRole('button', { name: 'Добавить получателей: 6' }).click();
    // Two rows are refused for lack of funds: an error in words with what to do, not a success.
    const status = page.locator('.notice.error').filter({ hasText: 'Добавлено получателей: 4, отклонено: 2' });
    await status.filter({ hasText: 'Недостаточно средств (4020): 2 строки. Пополните баланс' }).waitFor();
    const results = page.getByRole('table', { name: 'Результаты загрузки' });
    expect(await results.getByTestId('row-answer-error').count()).toBe(2);
    expect(await results.getByTestId('row-answer-error').first().textContent()).toContain(
      'Недостаточно средств (код 4020)',
    );
    await screenshot(page, `${engine}-app-dispatch-refused-ru`);

    // Topped up, the refused rows (and only they) are sent again.
    await t.admin('POST', `/admin/v1/accounts/${poor.id}/balance`, { currency: 'RUB', amount: 100 });
    await page.getByRole('button', { name: 'Повторить отклонённые строки (2)' }).click();
    await page.locator('.notice.ok').filter({ hasText: 'Добавлено получателей: 2, отклонено: 0.' }).waitFor();
    expect(await results.getByTestId('row-answer-error').count()).toBe(0);
    await page
      .getByTestId('start-estimate')
      .filter({ hasText: 'После запуска уйдёт 6 сообщений (6 частей)' })
      .waitFor();
    const after = await t.call('GET', `/api/v1/dispatch/${dispatchId}`, { token: poor.traffic });
    expect(after.body.messages.total).toBe(6);
    await page.context().close();
  }, 180_000);

  it("problem 10: the dashboard shows today's and this month's spend and delivery rate, by Moscow days", async () => {
    // Moscow is UTC+3 all year: its day and the UTC day differ for three hours. A message sent between the two
    // midnights is today's in one and not in the other.
    const DAY = 86_400_000;
    const now = t.clock.now().getTime();
    const utcMidnight = Math.floor(now / DAY) * DAY;
    const moscowMidnight = Math.floor((now + 3 * 3_600_000) / DAY) * DAY - 3 * 3_600_000;
    const between = (utcMidnight + moscowMidnight) / 2;
    const real = t.clock.now();
    // The account (and its sender name) is made then too: a sender name is active from its start date on.
    t.clock.set(new Date(between));
    const client = await pricedAccount(1000);
    const [early] = await t.send(client.traffic, [
      message('SMS', { senderName: 'CostShop', destination: '79161300031' }),
    ]);
    t.clock.set(real);
    // Now: one delivered, one the simulators never deliver (a number ending in 7).
    const late = await t.send(client.traffic, [
      message('SMS', { senderName: 'CostShop', destination: '79161300032' }),
      message('SMS', { senderName: 'CostShop', destination: '79261300037' }),
    ]);
    const final = async (uuid: string) =>
      waitFor(async () => {
        const reply = await t.call('GET', `/api/v1/message/${uuid}`, { token: client.traffic });
        return ['delivered', 'undelivered'].includes(reply.body.status) ? reply.body : undefined;
      });
    const messages = await Promise.all([early!, ...late].map(final));
    const created = (m: { messageUuid: string }) => (m.messageUuid === early ? between : now);
    const since = (start: number) => messages.filter((m) => created(m) >= start);
    const moscowMonth = Date.UTC(
      new Date(now + 3 * 3_600_000).getUTCFullYear(),
      new Date(now + 3 * 3_600_000).getUTCMonth(),
      1,
      -3,
    );
    const rub = (amount: number) =>
      amount.toLocaleString('ru-RU', { style: 'currency', currency: 'RUB', minimumFractionDigits: 2 });
    const spent = (list: typeof messages) => rub(list.reduce((sum, m) => sum + m.price.totalPrice, 0));
    const rate = (list: typeof messages) => {
      const delivered = list.filter((m) => m.status === 'delivered').length;
      const share = (delivered / list.length).toLocaleString('ru-RU', { style: 'percent', maximumFractionDigits: 1 });
      return `Доставлено ${share} (${delivered} из ${list.length}).`;
    };
    const today = since(moscowMidnight);
    expect(today.length).toBe(moscowMidnight < utcMidnight ? 3 : 2);

    for (const width of [1366, 390]) {
      const page = await russianApp(width, client, 'Europe/Moscow');
      await page
        .getByTestId('today-total')
        .filter({ hasText: String(today.length) })
        .waitFor();
      await page
        .getByTestId('spent-today')
        .filter({ hasText: spent(today) })
        .waitFor();
      expect(await page.getByTestId('rate-today').textContent()).toBe(rate(today));
      const month = since(moscowMonth);
      await page
        .getByTestId('spent-month')
        .filter({ hasText: spent(month) })
        .waitFor();
      expect(await page.getByTestId('rate-month').textContent()).toContain(rate(month));
      const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
      expect(overflow, `no sideways scroll at ${width} px`).toBe(false);
      await screenshot(page, `${engine}-app-dashboard-money-ru-${width}`);
      await page.context().close();
    }
  }, 180_000);
});
