import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSmppConnector } from '../factories/connectors.js';
import type { Herald } from '../../src/main.js';
import { SmscSimulator } from '../../src/simulators/smscSimulator.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, type TestDb } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound, untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';
import { messageRows } from '../helpers/messageRows.js';

/** ESME_RINVDSTADR: the refusal the first carrier answers every submission with. */
const INVALID_DESTINATION = 0x0b;

// DESIGN 21: a message refused by its route's first connector with an error code the route lists goes on through the
// next one; the client sees one message, sent and delivered, one price, and no callback of the refusal.
describe.each(ENGINES)('reroute on a refusal (%s)', (engine) => {
  let t: TestHerald;
  let testDb: TestDb;
  let herald: Herald;
  let token: string;
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const [first, second, third] = [0, 1, 2].map(
    () => new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 5 }),
  );
  // Takes every submission and reports it undelivered (error 1), whatever the number.
  const failing = new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 5, outcome: () => 'undelivered' });
  const receiver = new Receiver();

  const row = async (id: string) =>
    (
      await testDb.db.query<{ status: string; connector_id: string; error_code: number | null; price: string }>(
        `SELECT status, connector_id, error_code, price::text AS price FROM ${messageRows()} WHERE id = $1`,
        [id],
      )
    )[0]!;
  const send = (destination: string, content: string): Promise<string[]> =>
    t.send(token, [{ channelType: 'SMS', senderName: 'Shop', destination, content, callbackUrl: receiver.url }]);
  const eventsOf = (id: string) => receiver.events().filter((e) => e.message_uuid === id);

  beforeAll(async () => {
    for (const s of [first!, second!, third!, failing]) await s.start();
    await receiver.start();
    // The simulators' SMS connector gives way to four of the test's own carriers, routed below by prefix.
    t = await startTestHerald(engine, {
      clock,
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
      delivery: {
        delayMs: 5,
        configure: (file) => ({
          connectors: [
            ...file.connectors.filter((c) => c.type !== 'smpp'),
            testSmppConnector('first', first!.port),
            testSmppConnector('second', second!.port),
            testSmppConnector('third', third!.port),
            testSmppConnector('failing', failing.port),
          ],
          routes: [],
          tariffs: [{ channelType: 'SMS', price: 2.5, currency: 'RUB' }],
        }),
      },
    });
    ({ herald, testDb } = t);
    token = (await t.createAccount({ senderNames: [['SMS', 'Shop']], balance: 1000 })).traffic;
    const route = (prefix: string, connectors: string[], reroute: unknown) =>
      t.admin('POST', '/admin/v1/routes', {
        match: { channelType: 'SMS', prefixes: [prefix] },
        connectors: connectors.map((connectorId) => ({ connectorId })),
        ...(reroute ? { reroute } : {}),
      });
    // 79161: reroutes on the refusal once; 79162: does not; 79163: reroutes once, over three refusing carriers.
    for (const [prefix, connectors, reroute] of [
      ['79161', ['first', 'second'], { errorCodes: [INVALID_DESTINATION] }],
      ['79162', ['first', 'second'], null],
      ['79163', ['first', 'third'], { errorCodes: [INVALID_DESTINATION], max: 1 }],
      // After the receipt: any undelivered; the receipt's error code; a code the receipt does not carry.
      ['79164', ['failing', 'second'], { onUndelivered: true }],
      ['79165', ['failing', 'second'], { errorCodes: [1] }],
      ['79166', ['failing', 'second'], { errorCodes: [2] }],
    ] as const) {
      const created = await route(prefix, [...connectors], reroute);
      expect(created.status).toBe(201);
    }
    first!.refuseSubmissions(INVALID_DESTINATION);
  });
  afterAll(async () => {
    await t?.close();
    for (const s of [first, second, third, failing]) await s?.stop();
    await receiver.stop();
  });

  it('sends through the next connector: one message, delivered, one price, no callback of the refusal', async () => {
    const [id] = await send('79161234566', 'rerouted');
    await untilWritten(herald, async () => (await row(id!)).status === 'delivered');
    expect(await row(id!)).toMatchObject({ status: 'delivered', connector_id: 'second', error_code: null });
    expect(first!.submissions.map((s) => s.text)).toContain('rerouted');
    expect(second!.submissions.map((s) => s.text)).toEqual(['rerouted']);
    await untilCallbackRound(herald, () => eventsOf(id!).some((e) => e.callback_event === 'delivered'));
    // As any message sent once: its delivery, and nothing of the refusal.
    expect(eventsOf(id!).map((e) => [e.callback_event, e.status])).toEqual([['delivered', 'delivered']]);
    const message = await t.call('GET', `/api/v1/message/${id}`, { token });
    expect(message.body).toMatchObject({ status: 'delivered', price: { totalPrice: 2.5, final: true } });
    expect((await row(id!)).price).toBe('2.500000');
  });

  it('ends unsent with the carrier code, refunded, when the route does not reroute on it', async () => {
    const [id] = await send('79162234566', 'not rerouted');
    await untilWritten(herald, async () => (await row(id!)).status === 'unsent');
    expect(await row(id!)).toMatchObject({ status: 'unsent', connector_id: null, error_code: INVALID_DESTINATION });
    expect(second!.submissions.map((s) => s.text)).not.toContain('not rerouted');
  });

  it('reroutes at most `max` times: refused by the next connector too, it ends unsent', async () => {
    third!.refuseSubmissions(INVALID_DESTINATION);
    try {
      const [id] = await send('79163234566', 'refused twice');
      await untilWritten(herald, async () => (await row(id!)).status === 'unsent');
      expect((await row(id!)).error_code).toBe(INVALID_DESTINATION);
      expect(first!.submissions.filter((s) => s.text === 'refused twice')).toHaveLength(1);
      expect(third!.submissions.filter((s) => s.text === 'refused twice')).toHaveLength(1);
    } finally {
      third!.refuseSubmissions(undefined);
    }
  });

  it('sends on after an undelivered receipt: the client sees it sent, then delivered, and one callback', async () => {
    for (const destination of ['79164234566', '79165234566']) {
      const [id] = await send(destination, `receipt ${destination}`);
      await untilWritten(herald, async () => (await row(id!)).status === 'delivered');
      expect(await row(id!)).toMatchObject({ connector_id: 'second', error_code: null, price: '2.500000' });
      expect(failing.submissions.map((s) => s.text)).toContain(`receipt ${destination}`);
      await untilCallbackRound(herald, () => eventsOf(id!).some((e) => e.callback_event === 'delivered'));
      expect(eventsOf(id!).map((e) => [e.callback_event, e.status])).toEqual([['delivered', 'delivered']]);
      const message = (await t.call('GET', `/api/v1/message/${id}`, { token })).body;
      expect(message).toMatchObject({ status: 'delivered', errorCode: null, price: { totalPrice: 2.5, final: true } });
      // The abandoned attempt is kept, ignored, in the history: what the operator's route did.
      const rerouted = message.statusHistory.filter((e: { rerouted?: boolean }) => e.rerouted);
      expect(rerouted).toEqual(
        expect.arrayContaining([expect.objectContaining({ status: 'undelivered', errorCode: 1, ignored: true })]),
      );
      // The first sending's time stays the message's sent time.
      const sent = message.statusHistory.find((e: { status: string }) => e.status === 'sent');
      expect(message.sentTime).toBe(sent.at);
    }
  });

  it('keeps an undelivered receipt whose code the route does not list: undelivered, its callback', async () => {
    const [id] = await send('79166234566', 'not listed');
    await untilWritten(herald, async () => (await row(id!)).status === 'undelivered');
    expect(await row(id!)).toMatchObject({ connector_id: 'failing', error_code: 1 });
    expect(second!.submissions.map((s) => s.text)).not.toContain('not listed');
    await untilCallbackRound(herald, () => eventsOf(id!).some((e) => e.callback_event === 'delivered'));
    expect(eventsOf(id!).map((e) => [e.callback_event, e.status])).toEqual([['delivered', 'undelivered']]);
  });
});
