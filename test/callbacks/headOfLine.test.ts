import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

/**
 * A delivery its receiver keeps refusing holds back no newer event of other messages, not even in its own lane
 * (a callback URL has 16 lanes, by message uuid), while each message's own events still arrive in order.
 */
describe.each(ENGINES)('a refused callback delivery does not block newer events (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: {
        HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
        HERALD_CALLBACK_RETRY_INTERVAL: '1',
        HERALD_CALLBACK_RETRY_WINDOW: '600',
      },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const laneOf = async (id: string): Promise<number> =>
    (await t.testDb.db.query<{ lane: number }>('SELECT get_byte(uuid_send($1::uuid), 15) % 16 AS lane', [id]))[0]!.lane;

  it("delivers the lane's other messages while one delivery keeps being refused, then that one in order", async () => {
    let refusing = true;
    let refused = 0;
    const poisoned = (raw: string, id: string): boolean => raw.includes(id);
    let x = '';
    const accepted: { message_uuid: string; callback_event: string }[] = [];
    receiver.answer = (request) => {
      // Until the first message's uuid is known, it is the only one there is: refuse everything.
      if ((x === '' || poisoned(request.raw, x)) && refusing) {
        refused++;
        return 503;
      }
      accepted.push(...(request.body as typeof accepted));
      return 200;
    };
    const first = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        message('SMS', {
          destination: '79161250000',
          callbackUrl: receiver.url,
          callbackEvents: ['sent', 'delivered'],
        }),
      ],
    });
    x = first.body.items[0].messageUuid;
    await untilCallbackRound(t.herald, () => refused >= 1);

    // Batches of 16 until one of them lands in the first message's lane (a lane is 1 in 16, by uuid).
    const ids: string[] = [];
    const lane = await laneOf(x);
    const sameLane: string[] = [];
    for (let batch = 0; sameLane.length === 0 && batch < 20; batch++) {
      const body = Array.from({ length: 16 }, (_, i) =>
        message('SMS', {
          destination: `79161${String(batch).padStart(2, '0')}${String(i).padStart(3, '0')}0`,
          callbackUrl: receiver.url,
        }),
      );
      const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
      for (const item of reply.body.items as { messageUuid: string }[]) {
        ids.push(item.messageUuid);
        if ((await laneOf(item.messageUuid)) === lane) sameLane.push(item.messageUuid);
      }
    }
    expect(sameLane.length).toBeGreaterThan(0);
    // Every one of them is called back while the receiver still refuses the first message's delivery.
    await untilCallbackRound(t.herald, () => ids.every((id) => accepted.some((e) => e.message_uuid === id)), {
      describe: async () =>
        `${ids.filter((id) => !accepted.some((e) => e.message_uuid === id)).length} not called back; ` +
        JSON.stringify(
          await t.testDb.db.query(
            'SELECT lane, state, attempts, events, only_messages, excluded_messages, last_error, next_attempt_at ' +
              'FROM callback_deliveries WHERE account_id = $1 ORDER BY created_at',
            [account.id],
          ),
        ),
    });
    expect(accepted.some((e) => e.message_uuid === x)).toBe(false);
    const open = await t.testDb.db.query<{ attempts: number }>(
      "SELECT attempts FROM callback_deliveries WHERE account_id = $1 AND state = 'open'",
      [account.id],
    );
    expect(open.length).toBeGreaterThan(0);

    refusing = false;
    await untilCallbackRound(t.herald, () => accepted.filter((e) => e.message_uuid === x).length === 2, {
      timeoutMs: 15_000,
    });
    expect(accepted.filter((e) => e.message_uuid === x).map((e) => e.callback_event)).toEqual(['sent', 'delivered']);
  });
});
