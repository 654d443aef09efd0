import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ENGINE, launchBrowser, screenshot, signInToConsole, unlabelledControls } from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { ADMIN_TOKEN, startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

/** About 270 characters: an SMS of three parts. */
const LONG = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
/** Enough for two pages of the console's 50. */
const EARLIER = 54;

// The console's page of inbound messages no account owns, in Debian's Chromium: names as docs/web.md lists them.
describe.each([BROWSER_ENGINE])('unrouted inbound messages in the operator console (%s)', (engine) => {
  let t: TestHerald;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock(new Date(), { flowing: true }),
    });
    browser = await launchBrowser();
    // Earlier ones, kept as Herald keeps them; then a long SMS, in parts through the SMSC, to a number nobody owns.
    await t.testDb.db.query(
      `INSERT INTO unrouted_inbounds (connector_id, provider_message_id, sender_name, subscriber, text, received_at)
       SELECT 'sim-whatsapp', 'wamid.' || n, 'Nobody Inc', '7916125' || lpad(n::text, 4, '0'), 'earlier ' || n,
         now() - interval '1 hour'
       FROM generate_series(1, $1) AS n`,
      [EARLIER],
    );
    const answers = await t.simulators!.smsc.sendMo({ from: '79161259999', to: '9999', text: LONG, partSize: 100 });
    expect(answers.map((a) => a?.command_status)).toEqual([0, 0, 0]);
    await waitFor(async () => (await t.admin('GET', '/admin/v1/inbounds/unrouted?per_page=1')).body.total > EARLIER);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('pages through them, newest first, with sender, number, text, connector and time', async () => {
    const reply = await t.admin('GET', '/admin/v1/inbounds/unrouted?page=2&per_page=50');
    expect(reply.body).toMatchObject({ page: 2, per_page: 50, total: EARLIER + 1 });
    expect(reply.body.items).toHaveLength(EARLIER + 1 - 50);

    const page = await consolePage();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Unrouted inbound', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Unrouted inbound', exact: true }).waitFor();
    const rows = page.getByRole('table', { name: 'Unrouted inbound messages' }).getByTestId('unrouted-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(50);
    const [newest] = await rowsText(rows.first());
    // Received (a local time), From, To number or name, Text, Connector, and "Assign" for a number.
    expect(newest!.slice(1)).toEqual(['79161259999', '9999', LONG, 'sim-smsc', 'Assign']);
    expect(newest![0]).toMatch(/\d/);
    await page.getByText(`Page 1 of 2 (${EARLIER + 1} in all)`).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, `${engine}-admin-unrouted`);

    const pager = page.getByRole('navigation', { name: 'Unrouted inbound pages' });
    expect(await pager.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(`Page 2 of 2 (${EARLIER + 1} in all)`).waitFor();
    await waitFor(async () => (await rows.count()) === EARLIER + 1 - 50);
    // The oldest of the earlier ones come last.
    expect((await rowsText(rows.last()))[0]!.slice(1)).toEqual([
      '79161250001',
      'Nobody Inc',
      'earlier 1',
      'sim-whatsapp',
      '',
    ]);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.close();
  }, 60_000);

  const consolePage = (): Promise<Page> => signInToConsole(browser, t.url, ADMIN_TOKEN);
});

/** The trimmed text of each cell (header cells too) of each row. */
const rowsText = async (rows: Locator): Promise<string[][]> =>
  Promise.all(
    (await rows.all()).map(async (row) =>
      (await row.locator('th, td').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim()),
    ),
  );
