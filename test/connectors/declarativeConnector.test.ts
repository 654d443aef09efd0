import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/index.js';
import { parseConfigFile } from '../../src/config/configFile.js';
import type { HttpConnectorConfig } from '../../src/connectors/index.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const ID = 'vk-declarative';

/**
 * Herald's own provider format for VK (docs/connectors.md), as the profile `herald-vk` (profiles/herald-vk.json)
 * rather than the built-in connector: the same provider simulator answers it, and its signed status webhooks come
 * to /webhooks/http/{id}. Read as HERALD_CONFIG is, so that the profile completes the connector.
 */
function heraldVk(file: ConfigFile): ConfigFile {
  const simulated = file.connectors.find((c) => c.id === 'sim-vk') as HttpConnectorConfig;
  return parseConfigFile({
    connectors: [
      ...file.connectors.filter((c) => c.id !== 'sim-vk'),
      {
        id: ID,
        type: 'http',
        profile: 'herald-vk',
        baseUrl: simulated.baseUrl,
        secrets: simulated.secrets,
      },
    ],
    routes: file.routes.map((r) => (r.channel === 'VK' ? { ...r, connectors: [ID] } : r)),
  });
}

describe.each(ENGINES)('a declarative HTTP connector (DESIGN 19) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10, configure: heraldVk },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
    const simulated = t.simulators!.configFile.connectors.find((c) => c.id === 'sim-vk') as HttpConnectorConfig;
    t.simulators!.providers.setWebhook('VK', {
      url: `${t.url}/webhooks/http/${ID}`,
      secret: simulated.secrets!.WEBHOOK!,
    });
    account = await t.createAccount({ channels: { VK: true, VOICECODE: true } });
  });
  afterAll(async () => t?.close());

  const get = async (id: string) =>
    (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;

  it('sends by its templates, reads the id, takes signed status reports: delivered, read, undelivered', async () => {
    const ids = await t.send(account.traffic, [
      { channelType: 'VK', senderName: 'club1', destination: '79161600010', content: 'Read me' },
      { channelType: 'VK', senderName: 'club1', destination: '79161600017', content: 'Lost' },
    ]);
    const [read, lost] = await untilWritten(t.herald, async () => {
      const m = await Promise.all(ids.map(get));
      return m[0]!.readStatus === 'read' && m[1]!.status === 'undelivered' && m;
    });
    expect(read).toMatchObject({ status: 'delivered', readStatus: 'read' });
    expect(lost).toMatchObject({ status: 'undelivered', errorCode: 1 });
    const request = t.simulators!.providers.requests.find((r) => r.destination === '79161600010');
    expect(request?.body).toEqual({ group: 'club1', phone: '79161600010', text: 'Read me', ttl: expect.any(Number) });
  });

  it('maps a refusal listed permanent to unsent with its code', async () => {
    const [id] = await t.send(account.traffic, [
      { channelType: 'VK', senderName: 'club1', destination: '79161600018', content: 'Refused' },
    ]);
    const m = await untilWritten(t.herald, async () => {
      const x = await get(id!);
      return x.status === 'unsent' && x;
    });
    expect(m.errorCode).toBe(4221);
  });

  it("sends the client's external id where the profile names it (herald-voicecode), else leaves it out", async () => {
    const call = (destination: string, extra: Record<string, unknown>) => ({
      channelType: 'VOICECODE',
      senderName: 'voicecode',
      destination,
      content: { contentType: 'text', text: 'Код авторизации от Shop: 1234.' },
      ...extra,
    });
    await t.send(account.traffic, [call('79161600020', { externalMessageId: 'order-77' }), call('79161600021', {})]);
    const bodies = await untilWritten(t.herald, async () => {
      const found = ['79161600020', '79161600021'].map(
        (d) => t.simulators!.providers.requests.find((r) => r.destination === d)?.body as Record<string, unknown>,
      );
      return found.every(Boolean) && found;
    });
    expect(bodies[0]).toMatchObject({ phone: '79161600020', externalId: 'order-77' });
    expect(bodies[1]).not.toHaveProperty('externalId');
  });

  it('refuses a status report without the signature its settings name', async () => {
    const body = { statuses: [{ id: 'x', status: 'delivered' }] };
    const unsigned = await call(t.url, 'POST', `/webhooks/http/${ID}`, { body });
    expect(unsigned.status).toBe(401);
    // The built-in route does not know a declarative connector, and the declarative one no built-in connector.
    expect((await call(t.url, 'POST', `/webhooks/${ID}`, { body })).status).toBe(404);
    expect((await call(t.url, 'POST', '/webhooks/http/sim-whatsapp', { body })).status).toBe(404);
  });
});
