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
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const BOT = 'page_test_bot';
const SECRET = 'AAF-page-secret_0123456789abcdefghij';

// TELEGRAM in the pages (DESIGN 18), in Debian's Chromium: the operator attaches a bot's token on the Moderation
// page, then the client sends a code and composes a cascade with it. Herald runs no workers here: what the pages
// send is checked as stored (sending is the Telegram connectors').
describe.each([BROWSER_ENGINE])('TELEGRAM in the web pages (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let account: TestAccount;

  beforeAll(async () => {
    // The pages offer sender names whose start date has passed by the browser's clock: Herald's runs from the real now.
    t = await startTestHerald(engine, { clock: new TestClock(new Date(), { flowing: true }) });
    browser = await launchBrowser();
    account = await t.createAccount({ senderNames: [['TELEGRAM', BOT]], botTokens: { [BOT]: null } });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the operator attaches a bot token, shown masked; the client sends a code and a cascade after it', async () => {
    const console = await signInToConsole(browser, t.url, ADMIN_TOKEN);
    await console.getByRole('link', { name: 'Moderation', exact: true }).click();
    const row = console.getByTestId('bot-row').filter({ hasText: BOT });
    await row.getByRole('cell', { name: 'None', exact: true }).waitFor();
    const input = row.getByLabel(`Bot token of ${BOT}`);
    expect(await input.getAttribute('type')).toBe('password');
    // A token not of the form <bot id>:<secret>: the API's words, and the token stays in the field to be corrected.
    await input.fill(`7012345678:${SECRET}!`);
    await row.getByRole('button', { name: 'Attach token' }).click();
    await console.getByRole('status').filter({ hasText: 'Invalid botToken' }).waitFor();
    expect(await input.inputValue()).toBe(`7012345678:${SECRET}!`);
    await input.fill(`7012345678:${SECRET}`);
    await row.getByRole('button', { name: 'Attach token' }).click();
    await row.getByRole('cell', { name: '7012345678:…', exact: true }).waitFor();
    expect(await input.inputValue()).toBe('');
    expect(await console.content()).not.toContain(SECRET);
    expect(await unlabelledControls(console)).toEqual([]);
    await screenshot(console, `${engine}-admin-telegram-bots`);

    const app = await signInToApp(browser, t.url, account.system);
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sender names' }).click();
    await app
      .getByRole('region', { name: 'Sender names', exact: true })
      .getByRole('cell', { name: '7012345678:…' })
      .waitFor();

    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Send', exact: true }).click();
    await app.getByRole('heading', { name: 'Send a message' }).waitFor();
    await app.getByLabel('Channel').selectOption('TELEGRAM');
    await app.getByRole('option', { name: BOT }).waitFor({ state: 'attached' });
    await app.getByLabel('Sender name').selectOption(BOT);
    await app.getByLabel('Destination').fill('79161230010');
    await app.getByLabel('Content').selectOption('code');
    await app.getByLabel('Code').fill('123456');
    expect(await unlabelledControls(app)).toEqual([]);
    await app.getByRole('button', { name: 'Send', exact: true }).click();
    const sent = app.getByRole('status').filter({ hasText: 'Message accepted' });
    await sent.waitFor();
    const uuid = /([0-9a-f-]{36})/.exec((await sent.textContent()) ?? '')![1]!;
    const message = await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic });
    expect(message.body).toMatchObject({
      channelType: 'TELEGRAM',
      senderName: BOT,
      content: { contentType: 'code', code: '123456' },
      ttl: 3600,
    });

    // A cascade: `if not read` is offered after a TELEGRAM code, not after a text.
    await app.getByRole('navigation', { name: 'What to send' }).getByRole('link', { name: 'Cascade' }).click();
    await app.getByRole('heading', { name: 'Send a cascade' }).waitFor();
    await app.getByLabel('Destination').fill('79161230020');
    const step1 = app.getByRole('group', { name: 'Step 1' });
    const step2 = app.getByRole('group', { name: 'Step 2' });
    await step1.getByLabel('Channel').selectOption('TELEGRAM');
    await step1.getByRole('option', { name: BOT }).waitFor({ state: 'attached' });
    await step1.getByLabel('Sender name').selectOption(BOT);
    const conditions = async () => step1.getByLabel('Next step').locator('option').allTextContents();
    expect(await conditions()).toEqual(['if not delivered']);
    await step1.getByLabel('Content').selectOption('code');
    expect(await conditions()).toEqual(['if not delivered', 'if not read']);
    await step1.getByLabel('Code').fill('4321');
    await step1.getByLabel('Next step').selectOption({ label: 'if not read' });
    await step2.getByLabel('Channel').selectOption('VK');
    await step2.getByLabel('Sender name').fill('club1');
    await step2.getByLabel('Text').fill('Your code 4321');
    expect(await unlabelledControls(app)).toEqual([]);
    await screenshot(app, `${engine}-app-send-cascade-telegram`);
    await app.getByRole('button', { name: 'Send cascade' }).click();
    const accepted = app.getByRole('status').filter({ hasText: 'Cascade accepted' });
    await accepted.waitFor();
    const root = /([0-9a-f-]{36})/.exec((await accepted.textContent()) ?? '')![1]!;
    const [stored] = await t.testDb.db.query<{ steps: { message: { content: unknown }; condition: string | null }[] }>(
      'SELECT steps FROM cascades WHERE id = $1',
      [root],
    );
    expect(stored!.steps.map((s) => [s.message.content, s.condition])).toEqual([
      [{ contentType: 'code', code: '4321' }, 'not_read'],
      ['Your code 4321', null],
    ]);
    await app.close();
    await console.close();
  }, 90_000);
});
