import { TestClock } from '../helpers/clock.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConnectorConfig } from '../../src/connectors/connectorConfig.js';
import type { OutboundMessage } from '../../src/connectors/connector.js';
import { ProviderConnector } from '../../src/connectors/http/providerConnector.js';
import { connectorOrder } from '../../src/routing/routeTable.js';
import { orderedRoute } from '../factories/routes.js';

/** A provider on a real socket that answers with whatever status the test sets. */
function provider(): { server: Server; answer: { status: number } } {
  const answer = { status: 200 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(
        answer.status === 200
          ? JSON.stringify({ id: `p-${Date.now()}` })
          : JSON.stringify({ error: { code: answer.status, message: 'x' } }),
      );
    });
  });
  return { server, answer };
}

const config = (id: string, port: number): ProviderConnectorConfig => ({
  id,
  type: 'viber',
  baseUrl: `http://127.0.0.1:${port}`,
  apiKey: 'key',
  webhookSecret: 'secret',
  timeoutSeconds: 2,
  window: 10,
  mps: 1000,
  breakerFailures: 3,
  breakerOpenSeconds: 0.5,
});

const message = {
  id: 'm',
  destination: '79161234560',
  senderName: 'Shop',
  content: { text: 'hi' },
} as unknown as OutboundMessage;

describe('circuit breaker of an HTTP provider connector', () => {
  // The breaker runs on Herald's clock: the test moves it instead of waiting.
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const advance = (ms: number) => clock.advance(ms);
  const failing = provider();
  const healthy = provider();
  let primary: ProviderConnector;
  let backup: ProviderConnector;

  beforeAll(async () => {
    for (const p of [failing, healthy]) await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    primary = new ProviderConnector(config('primary', (failing.server.address() as AddressInfo).port), clock);
    backup = new ProviderConnector(config('backup', (healthy.server.address() as AddressInfo).port), clock);
    await primary.start();
    await backup.start();
  });
  afterAll(async () => {
    await primary.stop();
    await backup.stop();
    for (const p of [failing, healthy]) await new Promise((resolve) => p.server.close(resolve));
  });

  it('takes a provider that keeps answering 5xx out of routes, retries after a pause, closes on success', async () => {
    // The connector an ordered route of the two would send by now.
    const connectors = new Map([primary, backup].map((c) => [c.id, c]));
    const pick = (): string | undefined =>
      connectorOrder(orderedRoute('VIBER', ['primary', 'backup']), {
        usable: (id) => connectors.get(id)!.available(),
        deliveryRate: () => undefined,
        random: Math.random,
      })[0]?.connectorId;
    failing.answer.status = 503;
    for (let i = 0; i < 2; i++) expect((await primary.submit(message)).kind).toBe('transient');
    expect(primary.available()).toBe(true);
    expect(pick()).toBe('primary');
    expect((await primary.submit(message)).kind).toBe('transient');
    // Three failures in a row: out of the route, which now falls back.
    expect(primary.available()).toBe(false);
    expect(primary.state()).toMatchObject({
      state: 'failing',
      available: false,
      lastError: expect.stringContaining('503'),
    });
    expect(pick()).toBe('backup');

    advance(550);
    expect(primary.available()).toBe(true);
    // Still failing after the pause: out again, for twice as long.
    for (let i = 0; i < 3; i++) await primary.submit(message);
    expect(primary.available()).toBe(false);
    advance(550);
    expect(primary.available()).toBe(false);
    advance(550);
    expect(primary.available()).toBe(true);

    failing.answer.status = 200;
    expect((await primary.submit(message)).kind).toBe('accepted');
    // Closed: the count starts again, and the pause is back to its first length.
    failing.answer.status = 503;
    for (let i = 0; i < 2; i++) await primary.submit(message);
    expect(primary.available()).toBe(true);
    await primary.submit(message);
    expect(primary.available()).toBe(false);
    advance(550);
    expect(primary.available()).toBe(true);
  });

  it('counts no refusal of a message (4xx) as the provider failing', async () => {
    failing.answer.status = 200;
    await primary.submit(message);
    failing.answer.status = 400;
    for (let i = 0; i < 5; i++) expect((await primary.submit(message)).kind).toBe('permanent');
    expect(primary.available()).toBe(true);
    expect(primary.state().state).toBe('ready');
  });

  it('counts a provider that does not answer at all', async () => {
    const closed = provider();
    await new Promise<void>((resolve) => closed.server.listen(0, '127.0.0.1', resolve));
    const port = (closed.server.address() as AddressInfo).port;
    await new Promise((resolve) => closed.server.close(resolve));
    const unreachable = new ProviderConnector(config('unreachable', port), clock);
    await unreachable.start();
    for (let i = 0; i < 3; i++) expect((await unreachable.submit(message)).kind).toBe('transient');
    expect(unreachable.available()).toBe(false);
    await unreachable.stop();
  });
});
