import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { spawnHerald } from '../helpers/process.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/** The value of one series in Prometheus text format, e.g. value(text, 'herald_queue_messages{state="waiting"}'). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(ENGINES)('metrics, health and readiness (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;
  const scrape = async (): Promise<string> => {
    const reply = await fetch(`${t.url}/metrics`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('text/plain');
    return reply.text();
  };

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, { delivery: { delayMs: 20 }, env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' } });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('counts requests, accepted messages, submissions, receipts and callbacks, and shows the connectors', async () => {
    const body = ['79161234560', '79161234561', '79161234562'].map((destination) =>
      message('SMS', { destination, callbackUrl: receiver.url }),
    );
    const sent = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
    expect(sent.body.errors).toBe(false);
    await waitFor(() => receiver.events().length >= 3);

    const text = await waitFor(async () => {
      const scraped = await scrape();
      return (value(scraped, 'herald_callback_events_delivered_total') ?? 0) >= 3 ? scraped : undefined;
    });
    expect(value(text, 'herald_messages_accepted_total{channel="SMS"}')).toBe(3);
    expect(value(text, 'herald_http_requests_total{method="POST",route="/api/v1/message",status="200"}')).toBe(1);
    expect(value(text, 'herald_connector_submitted_total{connector="sim-smsc",channel="SMS"}')).toBeGreaterThanOrEqual(
      3,
    );
    expect(value(text, 'herald_connector_up{connector="sim-smsc",channel="SMS"}')).toBe(1);
    expect(value(text, 'herald_connector_window{connector="sim-smsc",channel="SMS"}')).toBeGreaterThan(0);
    expect(value(text, 'herald_receipts_total')).toBeGreaterThanOrEqual(3);
    expect(value(text, 'herald_receipt_latency_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(value(text, 'herald_callback_deliveries_total{result="delivered"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(
      /^herald_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/api\/v1\/message"\} \d+$/m,
    );
    expect(text).toContain('herald_process_resident_memory_bytes');
    if (engine === 'postgres') expect(value(text, 'herald_db_pool_connections{state="total"}')).toBeGreaterThan(0);
  });

  it('answers /healthz, and /readyz with the database and connector checks', async () => {
    expect((await call(t.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await call(t.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.checks.database.ok).toBe(true);
    expect(ready.body.checks.connectors.map((c: { id: string }) => c.id)).toContain('sim-smsc');
  });

  it('reports a connector that is down, and stays ready while another is up', async () => {
    t.simulators!.smsc.setDown(true);
    t.simulators!.smsc.dropConnections();
    try {
      const reply = await waitFor(async () => {
        const r = await call(t.url, 'GET', '/readyz');
        return r.body.checks.connectors.find((c: { id: string; up: boolean }) => c.id === 'sim-smsc' && !c.up)
          ? r
          : undefined;
      });
      expect(reply.status).toBe(200);
      expect(reply.body.checks.connectors.some((c: { up: boolean }) => c.up)).toBe(true);
      expect(value(await scrape(), 'herald_connector_up{connector="sim-smsc",channel="SMS"}')).toBe(0);
    } finally {
      t.simulators!.smsc.setDown(false);
    }
    await waitFor(() => t.herald.ctx.connectorStates().find((c) => c.id === 'sim-smsc' && c.available));
  });
});

describe.each(ENGINES)('queue and callback backlog figures (%s)', (engine) => {
  it('shows messages waiting to be sent with the age of the oldest, and undelivered callback events', async () => {
    // An api-only process: nothing sends, so what is accepted waits.
    const t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-10T09:00:00Z'),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    try {
      const account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
      const body = [0, 1].map(() =>
        message('SMS', { callbackUrl: 'http://127.0.0.1:9/hook', callbackEvents: ['price'] }),
      );
      expect((await t.call('POST', '/api/v1/message', { token: account.traffic, body })).body.errors).toBe(false);
      t.clock.advance(30_000);
      const text = await (await fetch(`${t.url}/metrics`)).text();
      expect(value(text, 'herald_queue_messages{state="waiting"}')).toBe(2);
      expect(value(text, 'herald_queue_oldest_age_seconds{state="waiting"}')).toBe(30);
      expect(value(text, 'herald_callback_backlog_events{stage="pending"}')).toBe(2);
      expect(value(text, 'herald_callback_open_deliveries')).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('the operations endpoints of a worker process and the metrics token', () => {
  it('serves /metrics and /healthz in a worker, and asks for the token when one is set', async () => {
    const herald = spawnHerald(['serve', '--role', 'worker'], {
      HERALD_DATA_DIR: `/tmp/herald-worker-${process.pid}`,
      HERALD_PORT: '0',
      HERALD_SIMULATORS: 'on',
      HERALD_DEMO: 'false',
      HERALD_METRICS_TOKEN: 'metrics-token-0123456789abcdef',
    });
    try {
      const [, url] = await herald.waitFor(/listening at (http:\/\/[^"\s]+)/, 60_000);
      expect((await call(url!, 'GET', '/healthz')).status).toBe(200);
      expect((await call(url!, 'GET', '/metrics')).body.error.code).toBe(4010);
      expect((await call(url!, 'GET', '/metrics', { auth: 'Bearer wrong' })).body.error.code).toBe(4012);
      const metrics = await fetch(`${url}/metrics`, {
        headers: { authorization: 'Bearer metrics-token-0123456789abcdef' },
      });
      expect(await metrics.text()).toContain('herald_connector_up{connector="sim-smsc",channel="SMS"}');
      // A worker has no client API.
      expect((await call(url!, 'GET', '/api/v1/balance')).status).toBe(404);
    } finally {
      herald.child.kill('SIGTERM');
      await herald.exited();
    }
  }, 90_000);
});
