import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { BATCH_ROUTES, deepJson } from './attacks/deepJson.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

/** The most values (jsonShape.ts) each route takes: 1000 items of its largest valid one. */
const VALUES = [384_000, 1_536_000, 256_000];

describe.each(ENGINES)('hostile: deep and dense JSON from an account holder (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 20 } });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('refuses them from a scan of the text as it arrives, before JSON.parse; another account is unhurt', async () => {
    const attack = deepJson();
    const state = await attack.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 6 });
    // The refusal is read by the client still sending (the rest of the body is read and dropped).
    results.forEach(([deep, dense], round) => {
      expect([deep!.status, deep!.body]).toEqual([
        400,
        { error: { code: 4000, msg: 'Malformed JSON body: nested deeper than 32 levels' } },
      ]);
      const values = VALUES[round % BATCH_ROUTES.length];
      expect([dense!.status, dense!.body]).toEqual([
        413,
        { error: { code: 4131, msg: `Request body holds more than ${values} JSON values` } },
      ]);
    });
    expectVictimUnhurt(figures);
  });
});
