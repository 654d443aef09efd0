import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { revokedKeys } from './attacks/revokedKeys.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: the keys of a deleted user (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    // The attack's addresses come in X-Forwarded-For from the (trusted) loopback proxy; the victim's is 127.0.0.1.
    t = await startTestHerald(engine, { env: { HERALD_TRUST_PROXY: '127.0.0.1' } });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it("refuses every use of a key minted in a deleted user's session, while another account is unhurt", async () => {
    const attack = revokedKeys();
    const state = await attack.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 20 });
    const answers = results.flat();
    // Nothing is read, minted or opened with it: bad credentials, or the address's failure limit.
    expect(answers.filter((reply) => reply.status !== 401 && reply.status !== 429)).toEqual([]);
    expect(answers[0]!.body).toEqual({ error: { code: 4012, msg: 'Bad credentials' } });
    expectVictimUnhurt(figures);
  });
});
