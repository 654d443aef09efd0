import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/config/index.js';
import { parseConfigFile } from '../../../src/config/configFile.js';
import { TestClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { call } from '../../helpers/http.js';
import { RapportoSimulator } from '../../helpers/providers/rapportoSimulator.js';
import { untilWritten } from '../../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../../helpers/testHerald.js';
import { waitFor } from '../../helpers/waitFor.js';
import { SENDER } from '../../messages/messageFixtures.js';

const VK_ID = 'rapporto-vk';
const VIBER_ID = 'rapporto-viber';
const SECRETS = { LOGIN: 'herald-partner', PASSWORD: 'pw-7f3a' };

/** VK and VIBER through Rapporto's REST v6 (profiles rapporto-vk and rapporto-viber) at the simulator's URI. */
const viaRapporto =
  (sim: RapportoSimulator) =>
  (file: ConfigFile): ConfigFile =>
    parseConfigFile({
      connectors: [
        ...file.connectors.filter((c) => c.id !== 'sim-vk' && c.id !== 'sim-viber'),
        ...[VK_ID, VIBER_ID].map((id) => ({ id, type: 'http', profile: id, baseUrl: sim.url, secrets: SECRETS })),
      ],
      routes: file.routes.map((r) =>
        r.channel === 'VK'
          ? { ...r, connectors: [VK_ID] }
          : r.channel === 'VIBER'
            ? { ...r, connectors: [VIBER_ID] }
            : r,
      ),
    });

/**
 * Rapporto's REST API v6.0 for VK and VIBER (profiles/research/vk-ok-viber.md section 2) end to end: Herald sends by
 * the profiles, the simulator checks each request field by field and answers and reports as Rapporto documents
 * (outcomes by the destination's last digit: 0-5 delivered and read, 6 delivered, 7 undelivered, 8 refused, 9 no
 * final report), and its unsigned reports come to /webhooks/http/{id}.
 */
describe.each(ENGINES)('Rapporto REST v6 profiles (%s)', (engine) => {
  let sim: RapportoSimulator;
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    const clock = new TestClock('2026-03-10T09:00:00Z', { flowing: true });
    sim = await new RapportoSimulator({ login: SECRETS.LOGIN, password: SECRETS.PASSWORD, delayMs: 10, clock }).start();
    t = await startTestHerald(engine, { delivery: { delayMs: 10, configure: viaRapporto(sim) }, clock });
    account = await t.createAccount({ channels: { VK: true, VIBER: true }, senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await sim?.stop();
  });

  const get = async (id: string) =>
    (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;
  const until = (ids: string[], done: (m: Record<string, any>[]) => boolean) =>
    untilWritten(t.herald, async () => {
      const m = await Promise.all(ids.map(get));
      return done(m) && m;
    });
  const vk = (destination: string, content: string, extra: Record<string, unknown> = {}) => ({
    channelType: 'VK',
    senderName: 'club1',
    destination,
    content,
    ...extra,
  });

  it('sends VK by the profile, field by field; reports 2, 9 and 5 become delivered, read, undelivered', async () => {
    const ids = await t.send(account.traffic, [
      vk('79161700010', 'Read me'),
      vk('79161700016', 'Never read', { ttl: 600 }),
      vk('79161700017', 'Lost', { ttl: 600 }),
    ]);
    const [read, unread, lost] = await until(
      ids,
      (m) => m[0]!.readStatus === 'read' && m[1]!.status === 'delivered' && m[2]!.status === 'undelivered',
    );
    expect(read).toMatchObject({ status: 'delivered', readStatus: 'read' });
    expect(unread!.readStatus ?? null).toBeNull();
    // errorCode "11" (unrouted), a string in the report, read as the number.
    expect(lost).toMatchObject({ status: 'undelivered', errorCode: 11 });

    const [first] = sim.requestsTo('79161700010');
    expect(first).toMatchObject({ status: 200, answer: { mtNum: expect.stringMatching(/^\d+$/), id: ids[0] } });
    expect(first!.body).toEqual({
      login: SECRETS.LOGIN,
      password: SECRETS.PASSWORD,
      id: ids[0],
      destAddr: '79161700010',
      // No ttl given: Herald's 25-hour lifetime, clamped to Rapporto's most, in seconds.
      message: { type: 'VK', data: { text: 'Read me', serviceNumber: 'club1', ttl: 86_400, ttlUnit: 'SECONDS' } },
      notifyUrl: `${t.url}/webhooks/http/${VK_ID}`,
    });
    const ttl = (sim.requestsTo('79161700016')[0]!.body as any).message.data.ttl;
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
    // Every report reached Herald and was taken. The simulator notes a report once Herald's answer arrives, which
    // can be after Herald has recorded it.
    const answered = () =>
      sim.reports.filter((r) => r.body.destAddr === '79161700010').map((r) => [r.body.status, r.answered]);
    await waitFor(() => answered().length === 2);
    expect(answered()).toEqual([
      [2, 200],
      [9, 200],
    ]);
  });

  it('maps permanent refusals to unsent with their code: destAddr (8), a VK text over 2000 (4)', async () => {
    const ids = await t.send(account.traffic, [vk('79161700018', 'Refused'), vk('79161700020', 'x'.repeat(2001))]);
    const [refused, tooLong] = await until(ids, (m) => m.every((x) => x.status === 'unsent'));
    expect(refused!.errorCode).toBe(8);
    expect(tooLong!.errorCode).toBe(4);
    expect(sim.requestsTo('79161700020').map((r) => [r.status, (r.answer as any).error.code])).toEqual([[400, 4]]);
  });

  it('tries again after Too many connections (429, 3) and Service is unavailable (503, 1), then sends', async () => {
    sim.refuse('79161700030', 3);
    sim.refuse('79161700031', 1);
    const ids = await t.send(account.traffic, [vk('79161700030', 'Busy'), vk('79161700031', 'Down')]);
    // Rapporto gives no Retry-After: Herald's default pause, which the test clock jumps over.
    await waitFor(
      () =>
        (sim.requestsTo('79161700031').length >= 2 && sim.requestsTo('79161700030').length >= 2) ||
        void t.clock.advance(1000),
    );
    const [busy, down] = await until(ids, (m) => m.every((x) => x.readStatus === 'read'));
    expect(busy!.status).toBe('delivered');
    expect(down!.status).toBe('delivered');
    expect(sim.requestsTo('79161700030').map((r) => r.status)).toEqual([429, 200]);
    expect(sim.requestsTo('79161700031').map((r) => r.status)).toEqual([503, 200]);
  });

  it('takes unsigned reports as Rapporto sends them: SEND (0) is no news, an unknown mtNum is harmless', async () => {
    const [id] = await t.send(account.traffic, [vk('79161700019', 'Silent')]);
    // Sent (Herald's record of the answer), and the SEND report taken: it changes nothing.
    await until([id!], (m) => m[0]!.status === 'sent');
    await waitFor(() => sim.reports.some((r) => r.body.destAddr === '79161700019' && r.answered === 200));
    expect((await get(id!)).status).toBe('sent');
    const unknown = { mtNum: '1', status: 2, type: 'VK', destAddr: '79161700099', errorCode: '0' };
    expect((await call(t.url, 'POST', `/webhooks/http/${VK_ID}`, { body: unknown })).status).toBe(200);
    expect((await get(id!)).status).toBe('sent');
  });

  it('sends a Viber text, an image and a button as instantContent TEXT, IMAGE_URL and BUTTON', async () => {
    const image = 'https://shop.example/sale.png';
    const button = { text: 'Sale today', caption: 'Open', action: 'https://shop.example/sale' };
    const ids = await t.send(
      account.traffic,
      [
        { contentType: 'text', text: 'Your code 1234' },
        { contentType: 'image', imageUrl: image },
        { contentType: 'button', ...button },
        { contentType: 'button', ...button, imageUrl: image },
      ].map((content, i) => ({ channelType: 'VIBER', senderName: 'Shop', destination: `7916170004${i}`, content })),
    );
    await until(ids, (m) => m.every((x) => x.readStatus === 'read'));
    const sent = (i: number) => sim.requestsTo(`7916170004${i}`).map((r) => [r.status, (r.body as any).message]);
    const data = (instantContent: unknown) => ({
      instantContent,
      serviceNumber: 'Shop',
      ttl: 86_400,
      ttlUnit: 'SECONDS',
    });
    expect(sent(0)).toEqual([[200, { type: 'VIBER', data: data({ type: 'TEXT', data: { text: 'Your code 1234' } }) }]]);
    expect(sent(1)).toEqual([[200, { type: 'VIBER', data: data({ type: 'IMAGE_URL', data: { imageURL: image } }) }]]);
    expect(sent(2)).toEqual([[200, { type: 'VIBER', data: data({ type: 'BUTTON', data: button }) }]]);
    expect(sent(3)).toEqual([
      [200, { type: 'VIBER', data: data({ type: 'BUTTON', data: { ...button, imageURL: image } }) }],
    ]);
    expect((sim.requestsTo('79161700040')[0]!.body as any).notifyUrl).toBe(`${t.url}/webhooks/http/${VIBER_ID}`);
  });

  it('maps a Viber button Rapporto refuses (an action over 2048 characters) to unsent, code 4', async () => {
    const action = `https://shop.example/${'x'.repeat(2030)}`;
    const content = { contentType: 'button', text: 'Sale', caption: 'Open', action };
    const [id] = await t.send(account.traffic, [
      { channelType: 'VIBER', senderName: 'Shop', destination: '79161700050', content },
    ]);
    const [m] = await until([id!], (x) => x[0]!.status === 'unsent');
    expect(m!.errorCode).toBe(4);
    expect((sim.requestsTo('79161700050')[0]!.answer as any).extendedDescription).toMatch(/action/);
  });
});
