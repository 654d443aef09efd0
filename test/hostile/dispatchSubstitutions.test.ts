import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { dispatchSubstitutions } from './attacks/dispatchSubstitutions.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: dispatch substitutions multiplied by placeholders (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('builds no text over its channel maximum, fills no inherited name; another account unhurt', async () => {
    const state = await dispatchSubstitutions.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => dispatchSubstitutions.round(t, state, round), {
      rounds: 3,
    });
    const item = (destination: unknown, msg: string) => ({ destination, errorCode: 7401, msg });
    for (const [large, documented, inherited] of results) {
      // 10,000 characters: over the schema's 1,000.
      const overSchema = 'Invalid substitutions.a: must not have more than 1000 characters';
      expect([large.status, large.body]).toEqual([200, large.body.map((i: any) => item(i.destination, overSchema))]);
      expect(large.body).toHaveLength(2);
      // 1,000 characters in 7,000 placeholders: 7 million characters, never built.
      const overSms = 'Content after substitution is longer than 255 SMS parts';
      expect([documented.status, documented.body]).toEqual([
        200,
        documented.body.map((i: any) => item(i.destination, overSms)),
      ]);
      expect(documented.body).toHaveLength(50);
      expect(inherited.body).toEqual([item('79167770000', 'Missing substitution constructor')]);
    }
    expectVictimUnhurt(figures);
  });
});
