import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { templateFlood } from './attacks/templateFlood.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

const LIMIT = 40;

describe.each(ENGINES)('hostile: templates without end (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_TEMPLATES_PER_ACCOUNT: String(LIMIT) },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('takes the limit of templates per account, even if created at once, while another account is unhurt', async () => {
    const state = await templateFlood.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => templateFlood.round(t, state, round), {
      rounds: LIMIT + 20,
      concurrency: 2,
    });
    expectVictimUnhurt(figures);
    expect(results.filter((reply) => reply.status === 201)).toHaveLength(LIMIT);
    const refused = results.filter((reply) => reply.status !== 201);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(new Set(refused.map((reply) => JSON.stringify([reply.status, reply.body])))).toEqual(
      new Set([
        JSON.stringify([409, { error: { code: 4094, msg: `Too many templates: at most ${LIMIT} per account` } }]),
      ]),
    );
    // A deleted template makes room for one more.
    const list = await t.call('GET', '/api/v1/templates?per_page=1', { token: state.token });
    expect(list.body.total).toBe(LIMIT);
    expect((await t.call('DELETE', `/api/v1/templates/${list.body.items[0].id}`, { token: state.token })).status).toBe(
      204,
    );
    expect((await templateFlood.round(t, state, 100_000)).status).toBe(201);
    expect((await templateFlood.round(t, state, 100_001)).status).toBe(409);
  });

  it('lets no more than the limit through when creations race for the last places', async () => {
    const state = await templateFlood.setup(t);
    for (let i = 0; i < LIMIT - 3; i++) expect((await templateFlood.round(t, state, i)).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 12 }, (_, i) => templateFlood.round(t, state, LIMIT + i)));
    expect(racing.filter((reply) => reply.status === 201)).toHaveLength(3);
    expect(racing.filter((reply) => reply.status === 409)).toHaveLength(9);
  });
});
