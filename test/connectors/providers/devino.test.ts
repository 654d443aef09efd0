import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/config/index.js';
import { parseConfigFile } from '../../../src/config/configFile.js';
import { TestClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { DevinoSimulator, VIBER_BATCH } from '../../helpers/providers/devinoSimulator.js';
import { untilWritten } from '../../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../../helpers/testHerald.js';
import { messageRows } from '../../helpers/messageRows.js';

const OK = 'devino-ok';
const VIBER = 'devino-viber';
const LOGIN = 'herald';
const PASSWORD = 'pa:ss word';
const TEMPLATE_ID = '4402';
/** The profiles poll every 30 s; the simulator's statuses move on by one step per poll interval. */
const POLL_MS = 30_000;

/** The VK and VIBER routes go to Devino through the profiles, as an operator's config file would say. */
function devino(url: string) {
  return (file: ConfigFile): ConfigFile =>
    parseConfigFile({
      connectors: [
        ...file.connectors.filter((c) => c.id !== 'sim-vk' && c.id !== 'sim-viber'),
        {
          id: OK,
          type: 'http',
          profile: 'devino-ok',
          baseUrl: url,
          secrets: { LOGIN, PASSWORD },
          vars: { TEMPLATE_ID, PRIORITY: 'high' },
        },
        { id: VIBER, type: 'http', profile: 'devino-viber', baseUrl: url, secrets: { LOGIN, PASSWORD } },
      ],
      routes: file.routes.map((r) =>
        r.channel === 'VK' ? { ...r, connectors: [OK] } : r.channel === 'VIBER' ? { ...r, connectors: [VIBER] } : r,
      ),
    });
}

describe.each(ENGINES)('Devino profiles devino-ok and devino-viber, against their simulator (%s)', (engine) => {
  const clock = new TestClock('2026-03-10T09:00:00Z', { flowing: true });
  const sim = new DevinoSimulator({ login: LOGIN, password: PASSWORD, delayMs: POLL_MS, clock });
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    await sim.start();
    t = await startTestHerald(engine, { delivery: { delayMs: 10, configure: devino(sim.url) }, clock });
    account = await t.createAccount({ channels: { VK: true, VIBER: true } });
  });
  afterAll(async () => {
    await t?.close();
    await sim.stop();
  });

  const get = async (id: string) =>
    (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;
  const until = (ids: readonly string[], done: (m: Record<string, any>) => boolean, timeoutMs?: number) =>
    untilWritten(
      t.herald,
      async () => {
        const messages = await Promise.all(ids.map(get));
        return messages.every(done) && messages;
      },
      { timeoutMs },
    );
  const carrierIds = async (connector: string) =>
    new Map(
      (
        await t.testDb.db.query<{ message_id: string; carrier_id: string }>(
          'SELECT message_id, carrier_id FROM submissions WHERE connector_id = $1',
          [connector],
        )
      ).map((r) => [r.message_id, r.carrier_id]),
    );
  /** Waits for a refused message's retry to be recorded (its history's last entry), then moves the clock to it. */
  const toRetry = async (id: string) => {
    const retryAt = await untilWritten(t.herald, async () => {
      const [row] = await t.testDb.db.query<{ retry_at: string | null }>(
        `SELECT history->-1->>'retryAt' AS retry_at FROM ${messageRows()} WHERE id = $1 AND status = 'sending'`,
        [id],
      );
      return row?.retry_at ?? false;
    });
    clock.set(retryAt);
  };
  /** One poll interval later: the connector's poll job runs (a test Herald's jobs run when the test says). */
  const pollAfterInterval = async (connector: string) => {
    clock.advance(POLL_MS);
    await t.herald.jobs!.run(`status-poll:${connector}`);
  };

  it('OK: a template sent with Basic auth, the 64-bit ids exact, polled: delivered, read, undelivered', async () => {
    const ids = await t.send(account.traffic, [
      { channelType: 'VK', senderName: 'shop', destination: '79161700010', content: 'Order 1 is ready' },
      { channelType: 'VK', senderName: 'shop', destination: '79161700016', content: 'Order 2 is ready' },
      { channelType: 'VK', senderName: 'shop', destination: '79161700017', content: 'Order 3 is ready' },
    ]);
    await until(ids, (m) => m.status === 'sent');
    const send = sim.sends('vk').find((r) => JSON.stringify(r.body).includes('79161700010'))!;
    expect(send.authorization).toBe(`Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`);
    expect(send.body).toEqual({
      vk: {
        subject: 'shop',
        priority: 'high',
        routes: ['ok'],
        validityPeriod: expect.any(Number),
        phone: '79161700010',
        templateId: Number(TEMPLATE_ID),
        templateData: { text: 'Order 1 is ready' },
      },
    });
    const vp = (send.body as { vk: { validityPeriod: number } }).vk.validityPeriod;
    expect(vp).toBeGreaterThanOrEqual(15);
    expect(vp).toBeLessThanOrEqual(86_400);

    // Each message's carrier id is the id Devino issued, digit for digit (they lie beyond 2^53, one apart).
    const issued = new Map(sim.issued('vk').map((i) => [i.destination, i.id]));
    const stored = await carrierIds(OK);
    expect(ids.map((id) => stored.get(id))).toEqual(
      ['79161700010', '79161700016', '79161700017'].map((d) => issued.get(d)),
    );

    // One poll interval: delivered (0, 6) and undelivered (7); one more: read (0). One id a request.
    const before = sim.requests.length;
    await pollAfterInterval(OK);
    const polls = sim.requests.slice(before).filter((r) => r.kind === 'status');
    expect(polls.map((r) => r.path).sort()).toEqual(ids.map((id) => `/status/vk?message=${stored.get(id)}`).sort());
    const [read, delivered, undelivered] = await until(ids, (m) => m.status !== 'sent');
    expect(read).toMatchObject({ status: 'delivered' });
    expect(delivered).toMatchObject({ status: 'delivered' });
    expect(undelivered).toMatchObject({ status: 'undelivered' });
    await pollAfterInterval(OK);
    const [first] = await until(ids.slice(0, 1), (m) => m.readStatus === 'read');
    expect(first).toMatchObject({ status: 'delivered', readStatus: 'read' });
    expect((await get(ids[1]!)).readStatus).not.toBe('read');
  });

  it('OK: a refused phone is unsent; queue_full is tried again', async () => {
    const [refused] = await t.send(account.traffic, [
      { channelType: 'VK', senderName: 'shop', destination: '79161700018', content: 'Refused' },
    ]);
    await until([refused!], (m) => m.status === 'unsent');
    const [history] = await t.testDb.db.query<{ detail: string }>(
      `SELECT history->-1->>'detail' AS detail FROM ${messageRows()} WHERE id = $1`,
      [refused],
    );
    expect(history!.detail).toContain('error phone_invalid');
    expect(sim.sends('vk').at(-1)!.answer).toEqual({ code: 'ok', description: '', result: { code: 'phone_invalid' } });

    sim.failNext('vk', 'queue_full');
    const [later] = await t.send(account.traffic, [
      { channelType: 'VK', senderName: 'shop', destination: '79161700011', content: 'Later' },
    ]);
    await toRetry(later!);
    await until([later!], (m) => m.status === 'sent');
    const sends = sim.sends('vk').filter((r) => JSON.stringify(r.body).includes('79161700011'));
    expect(sends.map((r) => (r.answer as { code: string }).code)).toEqual(['queue_full', 'ok']);
  });

  it('VIBER: 150 messages go at most 100 a request, each with its own id, digit for digit', async () => {
    const before = sim.sends('viber').length;
    const messages = Array.from({ length: 150 }, (_, i) => ({
      channelType: 'VIBER',
      senderName: 'Shop',
      destination: `791618${String(i).padStart(4, '0')}0`,
      content: { contentType: 'text', text: `Hello ${i}` },
    }));
    const ids = await t.send(account.traffic, messages);
    const all = (status: string) =>
      untilWritten(t.herald, async () => {
        const [row] = await t.testDb.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${messageRows()} WHERE id = ANY($1::uuid[]) AND status = $2`,
          [ids, status],
        );
        return row!.n === ids.length;
      });
    await all('sent');
    const sends = sim.sends('viber').slice(before);
    const sizes = sends.map((r) => (r.body as { messages: unknown[] }).messages.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(VIBER_BATCH);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(150);
    expect(sends.length).toBeLessThan(150);
    expect((sends[0]!.body as { resendSms: string }).resendSms).toBe('false');
    expect((sends[0]!.body as { messages: unknown[] }).messages[0]).toEqual({
      subject: 'Shop',
      priority: 'high',
      validityPeriodSec: expect.any(Number),
      type: 'viber',
      contentType: 'text',
      content: { text: expect.stringMatching(/^Hello \d+$/) },
      address: expect.stringMatching(/^791618\d{5}$/),
    });
    const stored = await carrierIds(VIBER);
    const issued = new Map(sim.issued('viber').map((i) => [i.destination, i.id]));
    expect(new Set(ids.map((id) => stored.get(id))).size).toBe(150);
    ids.forEach((id, i) => expect(stored.get(id)).toBe(issued.get(messages[i]!.destination)));
  });

  // The ids go as JSON integers, as documented (Long): `{carrierIds|number}`, each exact.
  it('VIBER: statuses polled 100 ids a request, as exact JSON integers: delivered, read, undelivered', async () => {
    const ids = await t.send(
      account.traffic,
      ['79162100010', '79162100016', '79162100017'].map((destination) => ({
        channelType: 'VIBER',
        senderName: 'Shop',
        destination,
        content: { contentType: 'text', text: 'Polled' },
      })),
    );
    await until(ids, (m) => m.status === 'sent');
    const before = sim.requests.length;
    await pollAfterInterval(VIBER);
    const [read, delivered, undelivered] = await until(ids, (m) => m.status !== 'sent');
    expect(read).toMatchObject({ status: 'delivered' });
    expect(delivered).toMatchObject({ status: 'delivered' });
    expect(undelivered).toMatchObject({ status: 'undelivered' });
    await pollAfterInterval(VIBER);
    await until(ids.slice(0, 1), (m) => m.readStatus === 'read');
    const polls = sim.requests.slice(before).filter((r) => r.api === 'viber' && r.kind === 'status');
    for (const poll of polls) {
      const asked = (poll.body as { messages: unknown[] }).messages;
      expect(asked.length).toBeLessThanOrEqual(VIBER_BATCH);
      expect(asked.every((id) => typeof id === 'bigint')).toBe(true);
    }
  });

  it('VIBER: button and image content as documented; a 20-character caption, a refused number unsent', async () => {
    const ids = await t.send(account.traffic, [
      {
        channelType: 'VIBER',
        senderName: 'Shop',
        destination: '79161900010',
        content: { contentType: 'button', text: 'Sale', caption: 'Open', action: 'https://example.com/sale' },
      },
      {
        channelType: 'VIBER',
        senderName: 'Shop',
        destination: '79161900020',
        content: { contentType: 'image', imageUrl: 'https://example.com/a.png' },
      },
      {
        channelType: 'VIBER',
        senderName: 'Shop',
        destination: '79161900030',
        content: { contentType: 'button', text: 'Sale', caption: 'A caption of 20 chr.', action: 'https://x.io' },
      },
      {
        channelType: 'VIBER',
        senderName: 'Shop',
        destination: '79161900018',
        content: { contentType: 'text', text: 'x' },
      },
    ]);
    const [button, image, longCaption, refused] = await until(ids, (m) => m.status !== 'sending');
    expect(button).toMatchObject({ status: 'sent' });
    expect(image).toMatchObject({ status: 'sent' });
    expect(longCaption).toMatchObject({ status: 'unsent' });
    expect(refused).toMatchObject({ status: 'unsent' });
    const items = sim
      .sends('viber')
      .flatMap((r) => (r.body as { messages: Record<string, unknown>[] }).messages)
      .filter((m) => String(m.address).startsWith('791619000'));
    expect(items.find((m) => m.address === '79161900010')).toMatchObject({
      contentType: 'button',
      content: { text: 'Sale', caption: 'Open', action: 'https://example.com/sale' },
    });
    expect(items.find((m) => m.address === '79161900020')).toMatchObject({
      contentType: 'image',
      content: { imageUrl: 'https://example.com/a.png' },
    });
  });

  it('VIBER: a whole refusal (error-system) is tried again for every message of the batch', async () => {
    sim.failNext('viber', 'error-system');
    const ids = await t.send(account.traffic, [
      {
        channelType: 'VIBER',
        senderName: 'Shop',
        destination: '79162000010',
        content: { contentType: 'text', text: 'a' },
      },
      {
        channelType: 'VIBER',
        senderName: 'Shop',
        destination: '79162000011',
        content: { contentType: 'text', text: 'b' },
      },
    ]);
    await toRetry(ids[0]!);
    await until(ids, (m) => m.status === 'sent');
    const answers = sim
      .sends('viber')
      .filter((r) => JSON.stringify(r.body).includes('7916200001'))
      .map((r) => (r.answer as { status: string }).status);
    expect(answers[0]).toBe('error-system');
    expect(answers.at(-1)).toBe('ok');
  });
});
