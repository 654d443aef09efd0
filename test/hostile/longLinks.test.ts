import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { LONG_LINK_TEXT, longLinks } from './attacks/longLinks.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

const BASE = 'http://127.0.0.1:1/s';

describe.each(ENGINES)('hostile: links of 20,000 dots to shorten (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_SHORT_URL_BASE: BASE },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('shortens each in linear time while another account is unhurt', async () => {
    const state = await longLinks.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => longLinks.round(t, state, round), {
      rounds: 8,
    });
    expect(
      results.flatMap((reply) => reply.body.items.map((item: { code: number }) => item.code)).every((c) => c === 201),
    ).toBe(true);
    expectVictimUnhurt(figures);
    // The whole link was shortened (its dots are inside it, not after it), and the text is one short SMS.
    const id = results[0]!.body.items[0].messageUuid;
    const object = (await t.call('GET', `/api/v1/message/${id}`, { token: state.token })).body;
    expect(object.content).toMatch(new RegExp(`^${BASE}/[A-Za-z0-9]{10}$`));
    expect(object.totalParts).toBe(1);
    const [link] = await t.testDb.db.query<{ url: string }>('SELECT url FROM short_links WHERE message_id = $1', [id]);
    expect(link!.url.startsWith(LONG_LINK_TEXT)).toBe(true);
  });
});
