import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, launchBrowser, screenshot, unlabelledControls } from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

// A dispatch created, filled from a CSV file and followed to its end on the Dispatches pages, in Debian's Chromium:
// names as docs/web.md lists them. The simulators deliver SMS to destinations ending in 1 and 2.
describe.each([BROWSER_ENGINE])('dispatches in the web pages (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      // The page offers sender names whose start date has passed by the browser's clock, and the dispatch's
      // messages are planned from Herald's now: both run from the real now.
      clock: new TestClock(new Date(), { flowing: true }),
    });
    browser = await launchBrowser();
    account = await t.createAccount({ channels: { VK: true }, senderNames: [['SMS', 'SpringShop']] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const signIn = async (): Promise<Page> => {
    const app = await browser.newPage();
    // A busy machine (one core kept busy beside the suite) took the first page past Playwright's 30 s once.
    app.setDefaultTimeout(60_000);
    await app.goto(`${t.url}/app`);
    await app.getByLabel('System token').fill(account.system);
    await app.getByRole('button', { name: 'Sign in' }).click();
    await app.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dispatches' }).click();
    await app.getByRole('heading', { name: 'Dispatches', exact: true }).waitFor();
    return app;
  };
  const csv = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });

  it('a client creates a dispatch, uploads its destinations as CSV, starts it and sees it done', async () => {
    const app = await signIn();
    expect(await unlabelledControls(app)).toEqual([]);
    await app.getByLabel('Dispatch name').fill('Spring sale');
    await app.getByLabel('Channel').selectOption('SMS');
    await app.getByRole('option', { name: 'SpringShop' }).waitFor({ state: 'attached' });
    await app.getByLabel('Sender name').selectOption('SpringShop');
    await app.getByLabel('Text').fill('Hello {name}, spring is here');
    await app.getByRole('group', { name: 'Speed' }).getByLabel('Messages').fill('600');
    await app.getByLabel('Per', { exact: true }).selectOption({ label: 'per minute' });
    await screenshot(app, `${engine}-app-dispatches`);
    await app.getByRole('button', { name: 'Create dispatch' }).click();

    // The new dispatch's page: nothing to start before destinations are added.
    await app.getByRole('heading', { name: 'Dispatch Spring sale' }).waitFor();
    const dispatchId = /\/app\/dispatches\/([0-9a-f-]{36})$/.exec(app.url())![1]!;
    expect(await app.getByTestId('dispatch-status').textContent()).toBe('initiated');
    expect(await app.getByTestId('dispatch-text').textContent()).toBe('Hello {name}, spring is here');
    expect(await app.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
    expect(await unlabelledControls(app)).toEqual([]);

    // Three rows, one without a destination: the preview says so and the row is not sent.
    const file = app.getByLabel('CSV file');
    await file.setInputFiles(csv('spring.csv', 'phone,name\r\n79161240011,Anna\r\n,Boris\r\n79161240012,Vera\r\n'));
    await app.getByRole('status').filter({ hasText: 'spring.csv: 3 rows, 1 with problems (not added).' }).waitFor();
    const preview = app.getByRole('table', { name: 'Destinations preview' });
    // Each row's parts and price before it is added (issue 34, problem 4); this account has no tariff.
    await app.getByTestId('upload-estimate').filter({ hasText: 'Estimate: 2 messages, 2 parts' }).waitFor();
    expect(await cells(preview)).toEqual([
      ['2', '79161240011', 'Anna', '—', '1', 'no tariff'],
      ['3', '—', 'Boris', 'No destination', '—'],
      ['4', '79161240012', 'Vera', '—', '1', 'no tariff'],
    ]);
    expect(await preview.getByTestId('row-problem').allTextContents()).toEqual(['No destination']);
    await screenshot(app, `${engine}-app-dispatch-preview`);
    await app.getByRole('button', { name: 'Add 2 destinations' }).click();
    await app
      .getByRole('status')
      .filter({ hasText: '2 destinations added, 0 refused; 1 row with problems not sent.' })
      .waitFor();
    const results = app.getByRole('table', { name: 'Upload results' });
    expect((await cells(results)).map((row) => row.slice(0, 2))).toEqual([
      ['2', '79161240011'],
      ['4', '79161240012'],
    ]);
    await app.getByTestId('messages-total').filter({ hasText: '2' }).waitFor();

    // A row the browser cannot judge and the API refuses: its answer is shown with its code.
    await file.setInputFiles(csv('more.csv', 'phone,name\n12345,Gleb\n'));
    await app.getByRole('status').filter({ hasText: 'more.csv: 1 row, no problems found.' }).waitFor();
    await app.getByRole('button', { name: 'Add 1 destination' }).click();
    // A refusal is an error (issue 34, problem 4), in words per code.
    await app
      .getByRole('status')
      .filter({
        hasText: '0 destinations added, 1 refused. The destination is not a valid phone number (7401): 1 row.',
      })
      .waitFor();
    expect(await results.getByTestId('row-answer-error').allTextContents()).toEqual([
      expect.stringMatching(/^The destination is not a valid phone number \(code 7401\)/),
    ]);
    expect(await app.getByTestId('messages-total').textContent()).toBe('2');
    await screenshot(app, `${engine}-app-dispatch-upload`);

    // Started, the page reads the dispatch again by itself until every message is final.
    await app.getByRole('button', { name: 'Start' }).click();
    await app.getByRole('status').filter({ hasText: 'Dispatch Spring sale started.' }).waitFor();
    await app
      .getByTestId('dispatch-status')
      .filter({ hasText: /^done$/ })
      .waitFor({ timeout: 30_000 });
    const counts = Object.fromEntries(
      await Promise.all(
        ['total', 'sending', 'sent', 'delivered', 'undelivered', 'unsent'].map(
          async (c) => [c, await app.getByTestId(`messages-${c}`).textContent()] as const,
        ),
      ),
    );
    expect(counts).toEqual({ total: '2', sending: '0', sent: '0', delivered: '2', undelivered: '0', unsent: '0' });
    expect(await app.getByTestId('dispatch-finished').textContent()).toBe('2 of 2 messages have a final status');
    await app.getByRole('img', { name: /^Messages sent per minute: .* 2 sent in all/ }).waitFor();
    // Once started, no more destinations and no more changes.
    expect(await app.getByLabel('CSV file').count()).toBe(0);
    expect(await app.getByRole('button', { name: /^(Start|Pause|Resume|Stop)/ }).count()).toBe(0);
    await screenshot(app, `${engine}-app-dispatch-done`);

    // Its messages in the list, each with its own substitution.
    await app.getByRole('link', { name: 'Its messages in the list' }).click();
    await app.waitForURL(new RegExp(`/app/messages\\?dispatch_id=${dispatchId}$`));
    const list = app.getByRole('region', { name: 'Messages', exact: true });
    await list.getByTestId('row-status').nth(1).waitFor();
    expect(await app.getByLabel('Dispatch', { exact: true }).inputValue()).toBe(dispatchId);
    expect((await list.getByRole('cell', { name: /^Hello / }).allTextContents()).sort()).toEqual([
      'Hello Anna, spring is here',
      'Hello Vera, spring is here',
    ]);

    // The list of dispatches links to it, with its status and counters.
    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dispatches' }).click();
    const row = app.getByRole('region', { name: 'Dispatches', exact: true }).getByRole('row', { name: /Spring sale/ });
    await row.waitFor();
    expect(await row.getByTestId('row-dispatch-status').textContent()).toBe('done');
    await row.getByRole('link', { name: 'Spring sale' }).click();
    await app.getByRole('heading', { name: 'Dispatch Spring sale' }).waitFor();
    await app.close();
  }, 150_000);

  it('a client creates a dispatch of cascades (VK, then SMS when not delivered) and sees its steps', async () => {
    const app = await signIn();
    await app.getByLabel('Dispatch name').fill('Chain sale');
    await app.getByLabel('Send as').selectOption({ label: 'A cascade of channels' });
    const step1 = app.getByRole('group', { name: 'Step 1' });
    const step2 = app.getByRole('group', { name: 'Step 2' });
    await step1.getByLabel('Channel').selectOption('VK');
    await step1.getByLabel('Sender name').fill('club1');
    await step1.getByLabel('Text').fill('Hi {name}');
    await step1.getByLabel('Next step').selectOption({ label: 'if not delivered' });
    await step2.getByLabel('Channel').selectOption('SMS');
    await step2.getByRole('option', { name: 'SpringShop' }).waitFor({ state: 'attached' });
    await step2.getByLabel('Sender name').selectOption('SpringShop');
    await step2.getByLabel('Text').fill('Hi {name} by SMS');
    expect(await unlabelledControls(app)).toEqual([]);
    await screenshot(app, `${engine}-app-dispatch-cascade`);
    await app.getByRole('button', { name: 'Create dispatch' }).click();

    await app.getByRole('heading', { name: 'Dispatch Chain sale' }).waitFor();
    const dispatchId = /\/app\/dispatches\/([0-9a-f-]{36})$/.exec(app.url())![1]!;
    expect(await app.getByTestId('dispatch-step').allTextContents()).toEqual([
      'VK from club1; the next step if not delivered: Hi {name}',
      'SMS from SpringShop: Hi {name} by SMS',
    ]);
    // 1: VK delivers; 7: VK does not, nor SMS after it.
    const added = await t.call('POST', `/api/v1/dispatch/${dispatchId}/messages`, {
      token: account.traffic,
      body: [
        { destination: '79161270011', substitutions: { name: 'Anna' } },
        { destination: '79161270017', substitutions: { name: 'Boris' } },
      ],
    });
    expect(added.status).toBe(200);
    await app.getByRole('button', { name: 'Refresh' }).click();
    await app.getByTestId('messages-total').filter({ hasText: /^2$/ }).waitFor();
    await app.getByRole('button', { name: 'Start' }).click();
    await app
      .getByTestId('dispatch-status')
      .filter({ hasText: /^done$/ })
      .waitFor({ timeout: 30_000 });

    // Every step is a message of the dispatch: Boris's VK step and the SMS after it, each undelivered.
    await app.getByRole('link', { name: 'Its messages in the list' }).click();
    const list = app.getByRole('region', { name: 'Messages', exact: true });
    await list.getByTestId('row-status').nth(2).waitFor();
    expect((await list.getByRole('cell', { name: /^Hi / }).allTextContents()).sort()).toEqual([
      'Hi Anna',
      'Hi Boris',
      'Hi Boris by SMS',
    ]);
    await app.close();
  }, 150_000);

  it('a client pauses, resumes and stops a dispatch (stop in two clicks)', async () => {
    const app = await signIn();
    await app.getByLabel('Dispatch name').fill('One an hour');
    await app.getByRole('option', { name: 'SpringShop' }).waitFor({ state: 'attached' });
    await app.getByLabel('Text').fill('Slowly, {name}');
    await app.getByRole('group', { name: 'Speed' }).getByLabel('Messages').fill('1');
    await app.getByLabel('Per', { exact: true }).selectOption('hour');
    await app.getByRole('button', { name: 'Create dispatch' }).click();
    await app.getByRole('heading', { name: 'Dispatch One an hour' }).waitFor();
    const dispatchId = /\/app\/dispatches\/([0-9a-f-]{36})$/.exec(app.url())![1]!;
    const added = await t.call('POST', `/api/v1/dispatch/${dispatchId}/messages`, {
      token: account.traffic,
      body: ['79161250011', '79161250012', '79161250013'].map((destination) => ({
        destination,
        substitutions: { name: 'Anna' },
      })),
    });
    expect(added.status).toBe(200);
    await app.getByRole('button', { name: 'Refresh' }).click();
    await app.getByTestId('messages-total').filter({ hasText: /^3$/ }).waitFor();

    // One an hour: after the start the first goes and two wait, so the dispatch stays sending while the test acts.
    const status = app.getByTestId('dispatch-status');
    await app.getByRole('button', { name: 'Start' }).click();
    await status.filter({ hasText: /^sending$/ }).waitFor();
    await app.getByRole('button', { name: 'Pause' }).click();
    await app.getByRole('status').filter({ hasText: 'Dispatch One an hour paused.' }).waitFor();
    await status.filter({ hasText: /^paused$/ }).waitFor();
    expect(await app.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    await app.getByRole('button', { name: 'Resume' }).click();
    await app.getByRole('status').filter({ hasText: 'Dispatch One an hour resumed.' }).waitFor();
    await status.filter({ hasText: /^sending$/ }).waitFor();
    await app.getByRole('button', { name: 'Stop One an hour' }).click();
    await app.getByRole('button', { name: 'Confirm stop One an hour' }).click();
    await app.getByRole('status').filter({ hasText: 'Dispatch One an hour stopped.' }).waitFor();
    await status.filter({ hasText: /^stopped$/ }).waitFor();
    // The page reads it again until the messages handed to the carrier before the stop are final too.
    await app.getByTestId('dispatch-finished').filter({ hasText: '3 of 3 messages have a final status' }).waitFor();
    expect(Number(await app.getByTestId('messages-unsent').textContent())).toBeGreaterThanOrEqual(1);
    expect(await app.getByRole('button', { name: /^(Start|Pause|Resume|Stop)/ }).count()).toBe(0);
    await screenshot(app, `${engine}-app-dispatch-stopped`);
    await app.close();
  }, 120_000);
});

/** The trimmed text of each cell of each body row of a table. */
const cells = async (table: ReturnType<Page['getByRole']>): Promise<string[][]> =>
  Promise.all(
    (await table.locator('tbody tr').all()).map(async (row) =>
      (await row.getByRole('cell').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim()),
    ),
  );
