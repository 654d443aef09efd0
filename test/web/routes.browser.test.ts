import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_ENGINE,
  screenshot,
  signInToConsole,
  startBrowserHerald,
  unlabelledControls,
} from '../helpers/browser.js';
import { ADMIN_TOKEN, type TestAccount } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const SENDER = 'RouteShop';
/** Ends in 0: the SMSC simulator delivers it (DESIGN 9). */
const DESTINATION = '79161234560';

// The console's Routes and Margins pages (DESIGN 21) in Debian's Chromium: names as docs/web.md lists them.
describe.each([BROWSER_ENGINE])('routes and margins pages (%s)', (engine) => {
  let h: Awaited<ReturnType<typeof startBrowserHerald>>;
  let account: TestAccount;
  let page: Page;
  let routeId: number;

  beforeAll(async () => {
    h = await startBrowserHerald(engine);
    account = await h.t.createAccount({ senderNames: [['SMS', SENDER]], balance: 100 });
    const tariff = await h.t.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', price: 1.5, currency: 'RUB' });
    expect(tariff.status).toBe(201);
    // The form offers the connectors that report, and resolve names the one that is up: the SMPP one, once bound.
    await waitFor(async () => {
      const connectors = await h.t.admin('GET', '/admin/v1/connectors');
      return connectors.body.items.some((c: { id: string; available: boolean }) => c.id === 'sim-smsc' && c.available);
    });
    page = await signInToConsole(h.browser, h.t.url, ADMIN_TOKEN);
    await page.setViewportSize({ width: 1366, height: 768 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const open = async (name: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
  };
  const table = () => page.getByRole('table', { name: 'Routes' });
  const rowIds = async (): Promise<number[]> =>
    (await table().getByTestId('route-row').locator('th').allTextContents()).map(Number);
  const row = (id: number) =>
    table()
      .getByTestId('route-row')
      .filter({ has: page.locator('th', { hasText: new RegExp(`^${id}$`) }) });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const connector1 = () => page.getByRole('group', { name: 'Connector 1' });

  it('adds a route (an unknown connector refused at its field), edits, reorders and resolves it', async () => {
    await open('Routes');
    await table().waitFor();
    const seeded = await rowIds();
    expect(seeded.length).toBeGreaterThan(0);

    await page.getByLabel('Priority').fill('10');
    await page.getByLabel('Prefixes').fill('7916');
    await connector1().getByLabel('Connector', { exact: true }).selectOption({ label: 'Another id…' });
    await connector1().getByLabel('Connector id').fill('nope');
    await connector1().getByLabel('Buy price per part').fill('0.1');
    await connector1().getByLabel('Currency').fill('RUB');
    expect(await unlabelledControls(page)).toEqual([]);
    await page.getByRole('button', { name: 'Add route' }).click();
    const refusal = 'connectors.0.connectorId: no connector nope is configured';
    await status(`Not saved: ${refusal}`).waitFor();
    // At the field: its error line, aria-invalid, described by the error, and focused.
    const idField = connector1().getByLabel('Connector id');
    expect(await idField.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await idField.getAttribute('aria-describedby')) ?? '';
    const errorLine = page.locator(`[id="${describedBy.split(' ').find((id) => id.endsWith('-error'))}"]`);
    expect(await errorLine.textContent()).toBe(refusal);
    expect(await page.evaluate('document.activeElement?.id')).toBe(await idField.getAttribute('id'));
    await screenshot(page, `${engine}-admin-routes-refused`);

    await connector1().getByLabel('Connector', { exact: true }).selectOption('sim-smsc');
    await page.getByRole('button', { name: 'Add route' }).click();
    const added = status(/^Route \d+ added\.$/);
    await added.waitFor();
    routeId = Number(/Route (\d+)/.exec((await added.textContent()) ?? '')![1]);
    await row(routeId).waitFor();
    expect(await row(routeId).getByTestId('route-connectors').textContent()).toMatch(/^sim-smsc · 0[.,]10 RUB$/);
    expect(await row(routeId).getByTestId('route-match').textContent()).toBe('prefixes: 7916');
    expect((await rowIds())[0]).toBe(routeId);

    // Edit: the form holds the route; a second prefix is saved with the rest unchanged.
    await page.getByRole('button', { name: `Edit route ${routeId}` }).click();
    await page.getByRole('heading', { name: `Edit route ${routeId}` }).waitFor();
    expect(await page.getByLabel('Prefixes').inputValue()).toBe('7916');
    expect(await connector1().getByLabel('Buy price per part').inputValue()).toBe('0.1');
    await page.getByLabel('Prefixes').fill('7916, 7917');
    await page.getByRole('button', { name: 'Save route' }).click();
    await status(`Route ${routeId} saved.`).waitFor();
    await row(routeId).getByTestId('route-match').filter({ hasText: 'prefixes: 7916, 7917' }).waitFor();
    const saved = await h.t.admin('GET', `/admin/v1/routes/${routeId}`);
    expect(saved.body).toMatchObject({
      priority: 10,
      match: { channelType: 'SMS', prefixes: ['7916', '7917'] },
      connectors: [{ connectorId: 'sim-smsc', buyPrice: { amount: 0.1, currency: 'RUB' } }],
      strategy: 'ordered',
      reroute: null,
      quality: null,
    });
    expect(saved.body.match.accountIds).toBeUndefined();

    // Reorder: down below its neighbour, then back up.
    const next = (await rowIds())[1]!;
    await page.getByRole('button', { name: `Move route ${routeId} down` }).click();
    await status(`Route ${routeId} moved below route ${next}.`).waitFor();
    await waitFor(async () => JSON.stringify((await rowIds()).slice(0, 2)) === JSON.stringify([next, routeId]));
    await page.getByRole('button', { name: `Move route ${routeId} up` }).click();
    await status(`Route ${routeId} moved above route ${next}.`).waitFor();
    await waitFor(async () => JSON.stringify((await rowIds()).slice(0, 2)) === JSON.stringify([routeId, next]));
    expect(Number(await row(routeId).getByTestId('route-priority').textContent())).toBeGreaterThan(
      Number(await row(next).getByTestId('route-priority').textContent()),
    );

    // At 1366 x 768 the page does not scroll sideways and the table's last buttons are on screen.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    const box = await row(routeId)
      .getByRole('button', { name: `Delete route ${routeId}` })
      .boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(1366);

    const resolve = page.getByRole('form', { name: 'Resolve a route' });
    await resolve.getByLabel('Destination').fill(`+${DESTINATION}`);
    await resolve.getByLabel('Account id').fill(String(account.id));
    await resolve.getByRole('button', { name: 'Resolve' }).click();
    await status(`Route ${routeId}, connector sim-smsc.`).waitFor();
    expect(await page.getByTestId('resolved-route').textContent()).toBe(String(routeId));
    expect(await page.getByTestId('resolved-connector').textContent()).toBe('sim-smsc');
    expect(await page.getByTestId('resolved-margin').textContent()).toMatch(/^1[.,]40 RUB$/);
    expect(
      await page.getByRole('table', { name: 'Connectors of the resolved route' }).locator('tbody tr').allTextContents(),
    ).toEqual([expect.stringMatching(/^1sim-smscup—0[.,]10 RUB$/)]);

    // A number the API refuses: its message at the Destination field.
    await resolve.getByLabel('Destination').fill('12');
    await resolve.getByRole('button', { name: 'Resolve' }).click();
    await resolve.getByText(/^Invalid destination: "12"/).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, `${engine}-admin-routes`);
  });

  it('shows the margin of a message sent through the route, with totals, an empty period and a wrong one', async () => {
    const [uuid] = await h.t.send(account.traffic, [
      { channelType: 'SMS', senderName: SENDER, destination: DESTINATION, content: 'Margin' },
    ]);
    await waitFor(
      async () =>
        (await h.t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic })).body.status === 'delivered',
    );

    await open('Margins');
    const margins = page.getByRole('table', { name: 'Margins' });
    await page.getByLabel('Group by').selectOption('route');
    await page.getByRole('button', { name: 'Show margins' }).click();
    await margins.getByRole('columnheader', { name: 'Route' }).waitFor();
    const rows = margins.getByTestId('margin-row');
    await waitFor(async () => (await rows.count()) === 1);
    expect(await rows.locator('th, td').allTextContents()).toEqual([
      String(routeId),
      'RUB',
      '1',
      expect.stringMatching(/^1[.,]50 RUB$/),
      expect.stringMatching(/^0[.,]10 RUB$/),
      expect.stringMatching(/^1[.,]40 RUB$/),
      '0',
    ]);
    expect(await margins.getByTestId('margin-total').locator('th').textContent()).toBe('Total RUB');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, `${engine}-admin-margins`);

    await page.getByLabel('From date').fill('2020-01-01');
    await page.getByLabel('To date').fill('2020-01-02');
    await page.getByRole('button', { name: 'Show margins' }).click();
    await margins.getByText('No message was sent over these days.').waitFor();

    await page.getByLabel('To date').fill('2020-03-01');
    await page.getByRole('button', { name: 'Show margins' }).click();
    await page.getByText('At most 31 days in one report.').waitFor();
    expect(await page.getByLabel('To date').getAttribute('aria-invalid')).toBe('true');
  });

  it('deletes a route only on the confirming click', async () => {
    await open('Routes');
    await row(routeId).waitFor();
    await page.getByRole('button', { name: `Delete route ${routeId}` }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await row(routeId).count()).toBe(1);
    await page.getByRole('button', { name: `Delete route ${routeId}` }).click();
    await page.getByRole('button', { name: `Confirm delete route ${routeId}` }).click();
    await status(`Route ${routeId} deleted.`).waitFor();
    await waitFor(async () => (await row(routeId).count()) === 0);
    expect((await h.t.admin('GET', `/admin/v1/routes/${routeId}`)).status).toBe(404);
  });
});
