import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/config/index.js';
import { parseConfigFile } from '../../../src/config/configFile.js';
import { TestClock } from '../../helpers/clock.js';
import { ENGINES } from '../../helpers/engines.js';
import { DevinoSimulator } from '../../helpers/providers/devinoSimulator.js';
import { RapportoSimulator } from '../../helpers/providers/rapportoSimulator.js';
import { waitFor } from '../../helpers/waitFor.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../../helpers/testHerald.js';
import { SENDER } from '../../messages/messageFixtures.js';
import { messageLeasedSql } from '../../../src/messages/claimSql.js';
import { messageRows } from '../../helpers/messageRows.js';

const VK = 'vk-rapporto';
const VIBER = 'viber-devino';
const RAPPORTO = { login: 'herald-partner', password: 'pw-7f3a' };
const DEVINO = { login: 'herald', password: 'pa:ss word' };
/** Devino's profile polls every 30 s. */
const POLL_MS = 30_000;

/** VK through Rapporto's REST API (statuses by webhook), VIBER through Devino's Viber API (statuses by poll). */
const twoProviders =
  (rapporto: RapportoSimulator, devino: DevinoSimulator) =>
  (file: ConfigFile): ConfigFile =>
    parseConfigFile({
      connectors: [
        ...file.connectors.filter((c) => c.id !== 'sim-vk' && c.id !== 'sim-viber'),
        {
          id: VK,
          type: 'http',
          profile: 'rapporto-vk',
          baseUrl: rapporto.url,
          secrets: { LOGIN: RAPPORTO.login, PASSWORD: RAPPORTO.password },
        },
        {
          id: VIBER,
          type: 'http',
          profile: 'devino-viber',
          baseUrl: devino.url,
          secrets: { LOGIN: DEVINO.login, PASSWORD: DEVINO.password },
        },
      ],
      routes: file.routes.map((r) =>
        r.channel === 'VK' ? { ...r, connectors: [VK] } : r.channel === 'VIBER' ? { ...r, connectors: [VIBER] } : r,
      ),
    });

/**
 * A cascade VK -> VIBER -> SMS whose VK and VIBER steps go through two real providers' profiles (DESIGN 19):
 * Rapporto's REST v6 for VK, Devino's Viber HTTP API for VIBER, each against the simulator of its documented wire
 * format, and the SMS step over SMPP to the embedded SMSC.
 */
describe.each(ENGINES)('a cascade through two real providers: Rapporto VK, Devino VIBER, SMS (%s)', (engine) => {
  const clock = new TestClock('2026-03-10T09:00:00Z', { flowing: true });
  const rapporto = new RapportoSimulator({ ...RAPPORTO, delayMs: 10, clock });
  const devino = new DevinoSimulator({ ...DEVINO, delayMs: POLL_MS, clock });
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    await rapporto.start();
    await devino.start();
    t = await startTestHerald(engine, { delivery: { delayMs: 10, configure: twoProviders(rapporto, devino) }, clock });
    account = await t.createAccount({ channels: { VK: true, VIBER: true }, senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await rapporto.stop();
    await devino.stop();
  });

  it('moves on at each undelivered, from Rapporto to Devino to SMS, and ends at a VK read', async () => {
    const cascade = (destination: string) => ({
      destination,
      cascade: [
        { channelType: 'VK', senderName: 'club1', content: 'Code 1234', condition: 'not_read' },
        {
          channelType: 'VIBER',
          senderName: 'Shop',
          content: { contentType: 'text', text: 'Code 1234' },
          condition: 'not_delivered',
        },
        { channelType: 'SMS', senderName: SENDER, content: 'Code 1234' },
      ],
    });
    const reply = await t.call('POST', '/api/v1/message/cascade', {
      token: account.traffic,
      body: [cascade('79161800067'), cascade('79161800060')],
    });
    expect(reply.body.errors).toBe(false);
    const [lost, read] = reply.body.items.map((i: { messageUuid: string }) => i.messageUuid) as string[];
    const state = async (root: string) =>
      (await t.call('GET', `/api/v1/message/cascade/${root}`, { token: account.traffic })).body.state;
    // A step claimed and not yet answered (held by its claim's record, or leased in its row by the fast lane):
    // moving the clock on now could end the lease while the provider's answer is on its way, and the step would be
    // sent again.
    const inFlight = async (): Promise<boolean> =>
      (
        await t.testDb.db.query(
          `SELECT 1 FROM ${messageRows()} WHERE cascade_id = ANY($1::uuid[]) AND status = 'sending'
             AND ${messageLeasedSql('messages', '$2')}`,
          [[lost, read], clock.now()],
        )
      ).length > 0;
    // Devino is asked every 30 s: each round moves the clock on and runs its poll, until both cascades are done. A
    // poll that learns nothing writes nothing, so the rounds are driven by time, not by the writer's signal.
    await waitFor(
      async () => {
        if ((await state(lost!)) === 'done' && (await state(read!)) === 'done') return true;
        if (await inFlight()) return false;
        clock.advance(POLL_MS);
        await t.herald.jobs!.run(`status-poll:${VIBER}`);
        return false;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const steps = (root: string) =>
      t.testDb.db.query<{ channel_type: string; status: string; read_status: string | null; connector_id: string }>(
        `SELECT channel_type, status, read_status, connector_id FROM ${messageRows()}
         WHERE cascade_id = $1 ORDER BY cascade_step`,
        [root],
      );
    expect((await steps(lost!)).map((r) => [r.channel_type, r.connector_id, r.status])).toEqual([
      ['VK', VK, 'undelivered'],
      ['VIBER', VIBER, 'undelivered'],
      ['SMS', 'sim-smsc', 'undelivered'],
    ]);
    expect((await steps(read!)).map((r) => [r.channel_type, r.status, r.read_status])).toEqual([
      ['VK', 'delivered', 'read'],
    ]);
    // Each provider saw its own step in its own format: Rapporto's envelope, Devino's batch item.
    expect(rapporto.requestsTo('79161800067').map((r) => (r.body as any).message.type)).toEqual(['VK']);
    expect(devino.sends('viber').flatMap((r) => (r.body as any).messages.map((m: any) => m.address))).toEqual([
      '79161800067',
    ]);
  });
});
