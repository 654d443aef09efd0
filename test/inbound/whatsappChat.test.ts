import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WhatsappConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message } from '../messages/messageFixtures.js';

const SHOP = 'Shop';
const SUBSCRIBER = '79161234560';

describe.each(ENGINES)('WhatsApp chat rules and inbound messages (spec 2.2, 6.5) (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;
  let templateId: number;
  const send = (content: Record<string, unknown>, destination = SUBSCRIBER) =>
    t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('WHATSAPP', { senderName: SHOP, destination, content })],
    });
  const inbound = (from: string, text: string, senderName = SHOP) =>
    call(t.simulators!.providers.url, 'POST', '/sim/v1/inbound', {
      body: { channelType: 'WHATSAPP', from, senderName, text },
    });

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    account = await t.createAccount({ senderNames: [['WHATSAPP', SHOP]], openWhatsapp: false });
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { channels: { WHATSAPP: true }, inbound: true });
    const template = await t.call('POST', '/api/v1/templates', {
      token: account.system,
      body: {
        channelType: 'WHATSAPP',
        templateType: 'SERVICE',
        senderName: SHOP,
        pattern: 'Your order %d is ready',
        dateFrom: '2026-03-01T00:00:00Z',
      },
    });
    templateId = template.body.id;
    await t.admin('POST', `/admin/v1/templates/${templateId}/approve`, {});
    const centers = await t.call('GET', '/api/v1/traffic-centers', { token: account.system });
    const center = await t.call('POST', '/api/v1/traffic-centers', {
      token: account.system,
      body: { name: 'Support' },
    });
    expect(centers.body.items).toEqual([expect.objectContaining({ name: 'Default', isDefault: true })]);
    const rule = await t.call('POST', '/api/v1/inbound-rules', {
      token: account.system,
      body: { trafficCenterId: center.body.id, callbackUrl: receiver.url, senderNames: [SHOP] },
    });
    expect(rule.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('takes only templates outside the window, any text inside it, and templates again after 24 hours', async () => {
    // The business writes first: free text is refused, a template is accepted.
    const free = await send({ contentType: 'text', text: 'Hi, how can we help?' });
    expect(free.body).toEqual({ errors: true, items: [{ code: 4221, msg: 'No active template for content' }] });
    const templated = await send({ contentType: 'text', text: 'Your order 4711 is ready' });
    expect(templated.body.items[0].code).toBe(201);
    const stored = await t.call('GET', `/api/v1/message/${templated.body.items[0].messageUuid}`, {
      token: account.traffic,
    });
    expect(stored.body.templateId).toBe(templateId);

    // The subscriber answers through the provider: an inbound webhook reaches Herald.
    expect((await inbound(`+${SUBSCRIBER}`, 'Where is my parcel?')).status).toBe(200);
    const callback = await waitFor(() => receiver.events().find((e) => e.callback_event === 'inbound_sent'));
    expect(callback).toEqual({
      message_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      callback_event: 'inbound_sent',
      channel_type: 'WHATSAPP',
      status: 'inbound_sent',
      status_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      item: expect.objectContaining({
        messageUuid: callback?.message_uuid,
        direction: 'inbound',
        status: 'inbound_sent',
        channelType: 'WHATSAPP',
        senderName: SHOP,
        destination: SUBSCRIBER,
        content: { contentType: 'text', text: 'Where is my parcel?' },
      }),
    });
    expect(
      receiver.received.find((r) => r.body?.[0]?.callback_event === 'inbound_sent')!.headers['x-herald-signature'],
    ).toMatch(/^t=\d+,v1=/);
    const center = (await t.call('GET', '/api/v1/traffic-centers', { token: account.system })).body.items.find(
      (c: { name: string }) => c.name === 'Support',
    );
    expect(callback.item.trafficCenterId).toBe(center.id);

    // Inside the window any content goes.
    expect((await send({ contentType: 'text', text: 'It arrives tomorrow.' })).body.items[0].code).toBe(201);

    // 24 hours later the window is closed again.
    t.clock.advance(24 * 3600_000 + 1000);
    try {
      expect((await send({ contentType: 'text', text: 'Anything else?' })).body.items[0].code).toBe(4221);
      expect((await send({ contentType: 'text', text: 'Your order 4712 is ready' })).body.items[0].code).toBe(201);
    } finally {
      t.clock.advance(-(24 * 3600_000 + 1000));
    }
  });

  it('keeps the window per subscriber and sender name', async () => {
    expect((await send({ contentType: 'text', text: 'Hello there' }, '79161234561')).body.items[0].code).toBe(4221);
  });

  it('lists inbound messages, puts unmatched ones in the default center, stores a repeated webhook once', async () => {
    await t.call(
      'PUT',
      `/api/v1/inbound-rules/` +
        `${(await t.call('GET', '/api/v1/inbound-rules', { token: account.system })).body.items[0].id}`,
      {
        token: account.system,
        body: {
          trafficCenterId: (await t.call('GET', '/api/v1/traffic-centers', { token: account.system })).body.items[1].id,
          senderNames: ['Other'],
          callbackUrl: receiver.url,
        },
      },
    );
    await inbound('79161234562', 'No rule for me');
    // Waits for this inbound itself: one of an earlier test may still be arriving.
    const unmatched = await waitFor(async () => {
      const reply = await t.call('GET', '/api/v1/message?direction=inbound', { token: account.traffic });
      return reply.body.items.find((m: { content: { text?: string } }) => m.content.text === 'No rule for me');
    });
    const defaultCenter = (await t.call('GET', '/api/v1/traffic-centers', { token: account.system })).body.items.find(
      (c: { isDefault: boolean }) => c.isDefault,
    );
    expect(unmatched).toMatchObject({
      direction: 'inbound',
      trafficCenterId: defaultCenter.id,
      status: 'inbound_sent',
    });

    // The provider sends the same webhook again (as it does when an answer is lost): stored once.
    const secret = (t.simulators!.configFile.connectors.find((c) => c.id === 'sim-whatsapp') as WhatsappConnectorConfig)
      .appSecret;
    const webhook = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: SHOP, phone_number_id: '100000001' },
                messages: [
                  {
                    from: '79161234562',
                    id: 'wamid.again',
                    timestamp: '1773133200',
                    type: 'text',
                    text: { body: 'Again' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', secret).update(webhook).digest('hex')}`;
    for (let i = 0; i < 2; i++) {
      const posted = await t.call('POST', '/webhooks/sim-whatsapp', {
        rawBody: webhook,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      });
      expect(posted.status).toBe(200);
    }
    const again = await t.call('GET', `/api/v1/message?direction=inbound&content=Again`, { token: account.traffic });
    expect(again.body.total).toBe(1);
  });

  it('keeps an inbound for a sender name no account has, for the operator', async () => {
    await inbound('79161234563', 'Hello?', 'Nobody Inc');
    const unrouted = await waitFor(async () => {
      const reply = await t.admin('GET', '/admin/v1/inbounds/unrouted');
      return reply.body.items.find((i: { text: string }) => i.text === 'Hello?');
    });
    expect(unrouted).toMatchObject({ senderName: 'Nobody Inc', from: '79161234563', connectorId: 'sim-whatsapp' });
  });

  it('stores an inbound for an account without inbound enabled and opens its window, but no callback', async () => {
    const quiet = await t.createAccount({ senderNames: [['WHATSAPP', 'Quiet']], openWhatsapp: false });
    await t.admin('PATCH', `/admin/v1/accounts/${quiet.id}`, { channels: { WHATSAPP: true } });
    const center = (await t.call('GET', '/api/v1/traffic-centers', { token: quiet.system })).body.items[0];
    await t.call('POST', '/api/v1/inbound-rules', {
      token: quiet.system,
      body: { trafficCenterId: center.id, callbackUrl: receiver.url },
    });
    const toQuiet = () =>
      t.call('POST', '/api/v1/message', {
        token: quiet.traffic,
        body: [
          message('WHATSAPP', {
            senderName: 'Quiet',
            destination: '79161234564',
            content: { contentType: 'text', text: 'Hi' },
          }),
        ],
      });
    expect((await toQuiet()).body.items[0].code).toBe(4221);

    await inbound('79161234564', 'Anyone there?', 'Quiet');
    const stored = await waitFor(
      async () => (await t.call('GET', '/api/v1/message?direction=inbound', { token: quiet.traffic })).body.items[0],
    );
    expect(stored).toMatchObject({ direction: 'inbound', status: 'inbound_sent', content: { text: 'Anyone there?' } });
    expect((await toQuiet()).body.items[0].code).toBe(201);
    // Events enter the outbox in the inbound's own transaction: none there means none will ever be sent.
    expect(await t.testDb.db.query('SELECT 1 FROM callback_events WHERE account_id = $1', [quiet.id])).toEqual([]);
    expect(receiver.events().filter((e) => e.item?.content?.text === 'Anyone there?')).toEqual([]);
  });

  it('refuses WhatsApp for an account whose channel is off (4031)', async () => {
    const off = await t.createAccount({ senderNames: [['WHATSAPP', 'Off']] });
    await t.admin('PATCH', `/admin/v1/accounts/${off.id}`, { channels: { WHATSAPP: false } });
    const reply = await t.call('POST', '/api/v1/message', {
      token: off.traffic,
      body: [message('WHATSAPP', { senderName: 'Off' })],
    });
    expect(reply.body.items[0]).toEqual({ code: 4031, msg: 'Channel is not enabled: WHATSAPP' });
  });
});
