import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { bigCascades } from './attacks/bigCascades.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: batches of 1000 six-step cascades (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 20 } });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  // Each batch is stored in slices of 64 KiB, one short transaction each (docs/security.md, "Large batches and the
  // event loop"): the victim's statements run between them, also on PGlite's one connection.
  it('takes each (12 MB, 6000 steps) while another account is unhurt', async () => {
    const attack = bigCascades();
    const state = await attack.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 3 });
    for (const reply of results) {
      expect(reply.status).toBe(200);
      expect(reply.body.errors).toBe(false);
      expect(reply.body.items).toHaveLength(1000);
    }
    expectVictimUnhurt(figures);
  }, 120_000);
});
