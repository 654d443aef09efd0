import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { unencodableLinks } from './attacks/unencodableLinks.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: short links Node cannot put in a Location header (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s' },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('redirects each to its percent-encoded form (no 500) while another account is unhurt', async () => {
    const state = await unencodableLinks.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => unencodableLinks.round(t, state, round), {
      rounds: 20,
    });
    expectVictimUnhurt(figures);
    expect(new Set(results.map((reply) => reply.status))).toEqual(new Set([302]));
    expect(new Set(results.map((reply) => reply.headers.get('location')))).toEqual(
      new Set(['https://shop.example/%E2%82%AC/%D0%BA%D0%B0%D1%82%D0%B0%D0%BB%D0%BE%D0%B3?q=%7F']),
    );
    const [clicks] = await t.testDb.db.query<{ links: number; clicks: number }>(
      'SELECT count(*)::int AS links, sum(clicks)::int AS clicks FROM short_links',
    );
    expect(clicks).toEqual({ links: results.length, clicks: results.length });
  });
});
