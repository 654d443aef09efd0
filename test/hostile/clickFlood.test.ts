import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { CLICK_FLOOD_TARGET, clickFlood } from './attacks/clickFlood.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: a flood of clicks on one short link (%s)', (engine) => {
  let t: TestHerald;
  let receiver: Receiver;
  let victim: TestAccount;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s', HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('redirects every click, records one a minute from one address, and another account is unhurt', async () => {
    const attack = clickFlood(receiver.url);
    const state = await attack.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 10 });
    expectVictimUnhurt(figures);
    expect(results.map((reply) => [reply.status, reply.headers.get('location')])).toEqual(
      results.map(() => [302, CLICK_FLOOD_TARGET]),
    );

    const recorded = async () => {
      const [link] = await t.testDb.db.query<{ clicks: number }>(
        'SELECT clicks FROM short_links WHERE message_id = $1',
        [state.messageId],
      );
      const [events] = await t.testDb.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM callback_events WHERE message_id = $1 AND event = 'click'",
        [state.messageId],
      );
      return { clicks: link!.clicks, events: events!.n };
    };
    expect(await recorded()).toEqual({ clicks: 1, events: 1 });
    await waitFor(() =>
      receiver.events().some((e) => e.message_uuid === state.messageId && e.callback_event === 'click'),
    );

    // A minute later the same address's click counts again.
    t.clock.advance(60_000);
    expect((await attack.round(t, state, 0)).status).toBe(302);
    expect(await recorded()).toEqual({ clicks: 2, events: 2 });
  });
});
