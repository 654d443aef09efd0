import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

/**
 * A worker's places: ten in all (eight for SERVICE and PROMO messages), five per channel (four), the rest kept for
 * AUTHORIZE and TRANSACT messages. Without places per channel, a stalled channel would take all eight.
 */
const SUBMITTER = { maxInFlight: 10, channelInFlight: 5, urgentPercent: 20 };

/**
 * How a worker's hands are shared when a carrier stalls (the provider simulator holds every VK request
 * unanswered): the stalled channel fills its own places only, and keeps its urgent share.
 */
describe.each(ENGINES)('places per channel (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let destinations = 0;
  /** A destination of its own, delivered (and read) by the simulators. */
  const destination = () => `7916${String(++destinations).padStart(6, '0')}1`;
  const statuses = async (ids: readonly string[]): Promise<string[]> =>
    (
      await t.testDb.db.query<{ status: string }>(
        `SELECT status FROM ${messageRows()} WHERE id = ANY($1::uuid[]) ORDER BY id`,
        [ids],
      )
    ).map((r) => r.status);

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 0, submitter: SUBMITTER } });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterEach(() => t.simulators!.providers.release('VK'));
  afterAll(async () => t?.close());

  it('lets SMS go while a stalled VK provider holds its channel share, and VK catches up after', async () => {
    const providers = t.simulators!.providers;
    providers.hold('VK');
    const vk = await t.send(
      account.traffic,
      Array.from({ length: 10 }, () => message('VK', { destination: destination(), trafficType: 'PROMO' })),
    );
    // Four VK messages in hand (the channel's five less its urgent place), whatever more wait in the queue.
    await waitFor(() => providers.heldRequests('VK') === 4, { describe: () => `${providers.heldRequests('VK')}` });
    const sms = await t.send(
      account.traffic,
      Array.from({ length: 3 }, () => message('SMS', { destination: destination() })),
    );
    await untilWritten(t.herald, async () => (await statuses(sms)).every((s) => s === 'delivered'), {
      describe: async () => (await statuses(sms)).join(),
    });
    expect(providers.heldRequests('VK')).toBe(4);
    providers.release('VK');
    await untilWritten(t.herald, async () => (await statuses(vk)).every((s) => s === 'delivered'), {
      describe: async () => (await statuses(vk)).join(),
    });
  });

  it("keeps a stalled channel's urgent place for an authorisation code behind its PROMO backlog", async () => {
    const providers = t.simulators!.providers;
    providers.hold('VK');
    await t.send(
      account.traffic,
      Array.from({ length: 8 }, () => message('VK', { destination: destination(), trafficType: 'PROMO' })),
    );
    await waitFor(() => providers.heldRequests('VK') === 4, { describe: () => `${providers.heldRequests('VK')}` });
    const codeDestination = destination();
    const [code] = await t.send(account.traffic, [
      message('VK', { destination: codeDestination, trafficType: 'AUTHORIZE' }),
    ]);
    // The code reaches the stalled provider at once, ahead of the PROMO messages still queued.
    await waitFor(() => providers.heldRequests('VK') === 5, { describe: () => `${providers.heldRequests('VK')}` });
    const before = providers.requests.length;
    providers.release('VK');
    // Answered in the order they came: four PROMO messages, then the code.
    expect(providers.requests.slice(before).map((r) => r.destination)[4]).toBe(codeDestination);
    await untilWritten(t.herald, async () => (await statuses([code!]))[0] === 'delivered');
  });
});
