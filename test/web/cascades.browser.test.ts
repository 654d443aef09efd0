import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, launchBrowser, screenshot, unlabelledControls } from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

// A cascade composed on the Send page and followed on the message page, in Debian's Chromium: names as docs/web.md
// lists them. The simulators answer by the destination's last digit: 7 is undelivered on every channel, so the VK
// step moves on to the SMS step, which ends the cascade undelivered too.
describe.each([BROWSER_ENGINE])('cascades in the web pages (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      // The Send page offers sender names whose start date has passed by the browser's clock: Herald's runs from
      // the real now.
      clock: new TestClock(new Date(), { flowing: true }),
    });
    browser = await launchBrowser();
    account = await t.createAccount({ channels: { VK: true }, senderNames: [['SMS', 'CascadeShop']] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a client composes a two-step cascade on the Send page and sees its chain on the message page', async () => {
    const app = await browser.newPage();
    await app.goto(`${t.url}/app`);
    await app.getByLabel('System token').fill(account.system);
    await app.getByRole('button', { name: 'Sign in' }).click();
    await app.getByRole('heading', { name: 'Dashboard' }).waitFor();

    await app.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Send', exact: true }).click();
    await app.getByRole('heading', { name: 'Send a message' }).waitFor();
    await app.getByRole('navigation', { name: 'What to send' }).getByRole('link', { name: 'Cascade' }).click();
    await app.getByRole('heading', { name: 'Send a cascade' }).waitFor();

    await app.getByLabel('Destination').fill('79161300017');
    const step1 = app.getByRole('group', { name: 'Step 1' });
    const step2 = app.getByRole('group', { name: 'Step 2' });
    await step1.getByLabel('Channel').selectOption('VK');
    await step1.getByLabel('Sender name').fill('club1');
    await step1.getByLabel('Text').fill('Your code 1234');
    await step1.getByLabel('TTL').fill('600');
    await step1.getByLabel('Next step').selectOption({ label: 'if not delivered' });
    await step2.getByLabel('Channel').selectOption('SMS');
    // The approved SMS name is the step's only choice once the names have loaded.
    await step2.getByRole('option', { name: 'CascadeShop' }).waitFor({ state: 'attached' });
    await step2.getByLabel('Sender name').selectOption('CascadeShop');
    await step2.getByLabel('Text').fill('Your code 1234 by SMS');
    // The last step has no condition; a third one added and removed again leaves the chain as it was.
    expect(await step2.getByLabel('Next step').count()).toBe(0);
    await app.getByRole('button', { name: 'Add a step' }).click();
    await app.getByRole('group', { name: 'Step 3' }).waitFor();
    await step2.getByLabel('Next step').waitFor();
    await app.getByRole('button', { name: 'Remove step 3' }).click();
    await app.getByRole('group', { name: 'Step 3' }).waitFor({ state: 'detached' });
    expect(await unlabelledControls(app)).toEqual([]);

    // A step the API refuses: the page names the step, in the API's words.
    await step2.getByLabel('TTL').fill('5');
    await app.getByRole('button', { name: 'Send cascade' }).click();
    await app.getByRole('status').filter({ hasText: 'Step 2: Invalid TTL 5 (4220)' }).waitFor();
    await step2.getByLabel('TTL').fill('');
    await screenshot(app, `${engine}-app-send-cascade`);

    await app.getByRole('button', { name: 'Send cascade' }).click();
    const accepted = app.getByRole('status').filter({ hasText: 'Cascade accepted' });
    await accepted.waitFor();
    const root = /([0-9a-f-]{36})/.exec((await accepted.textContent()) ?? '')![1]!;
    // Both steps end before the message page opens, so that it shows the whole chain on its first load.
    const cascade = await waitFor(
      async () => {
        const reply = await t.call('GET', `/api/v1/message/cascade/${root}`, { token: account.traffic });
        return reply.body.state === 'done' && reply.body;
      },
      { timeoutMs: 30_000 },
    );
    expect(cascade.steps.map((s: { movedOn: string | null }) => s.movedOn)).toEqual(['undelivered', null]);
    const step2Uuid: string = cascade.steps[1].message.messageUuid;

    await app.getByRole('link', { name: "Open the cascade's first message" }).click();
    await app.getByRole('heading', { name: `Message ${root}` }).waitFor();
    const steps = app.getByRole('table', { name: 'Cascade steps' }).getByTestId('cascade-step');
    await steps.first().waitFor();
    await expect(app.getByTestId('cascade-state').textContent()).resolves.toBe('done');
    expect(await rowsText(steps)).toEqual([
      ['1', 'VK', 'club1', 'if not delivered', 'this message', 'undelivered', 'undelivered'],
      ['2', 'SMS', 'CascadeShop', '—', step2Uuid, 'undelivered', '—'],
    ]);
    await screenshot(app, `${engine}-app-message-cascade`);

    // The second step's own page: it is step 2, and the chain marks it as this message.
    await app.getByRole('link', { name: 'Message of step 2' }).click();
    await app.waitForURL(new RegExp(`/app/messages/${step2Uuid}$`));
    await steps.nth(1).filter({ hasText: 'this message' }).waitFor();
    expect(await app.getByTestId('message-status').textContent()).toBe('undelivered');

    // The list of the cascade's messages, each with its step.
    await app.getByRole('link', { name: 'Its messages in the list' }).click();
    await app.waitForURL(new RegExp(`/app/messages\\?cascade_message_uuid=${root}$`));
    const markers = app.getByRole('region', { name: 'Messages', exact: true }).getByTestId('row-cascade-step');
    await markers.nth(1).waitFor();
    expect((await markers.allTextContents()).sort()).toEqual(['step 1', 'step 2']);
    expect(await app.getByLabel('Cascade', { exact: true }).inputValue()).toBe(root);
    await screenshot(app, `${engine}-app-messages-cascade`);
    await app.close();
  }, 60_000);
});

/** The trimmed text of each cell of each row. */
const rowsText = async (rows: Locator): Promise<string[][]> =>
  Promise.all(
    (await rows.all()).map(async (row) =>
      (await row.getByRole('cell').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim()),
    ),
  );
