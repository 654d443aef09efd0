import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { accountLargeBodies, LARGE_BODY_ROUTES } from './attacks/accountLargeBodies.js';
import type { LargeBodyReply } from './attacks/largeBodies.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

/** The largest valid body of each route attacked (test/http/bodyLimits.test.ts has them all). */
const LIMITS: Record<(typeof LARGE_BODY_ROUTES)[number]['path'], number> = {
  '/api/v1/templates': 157 * 1024,
  '/api/v1/sender-names': 13 * 1024,
  '/api/v1/callbacks/replay': 230 * 1024,
  '/api/v1/api-keys': 1024,
  '/api/v1/message/stop': 2295 * 1024,
  '/api/v1/flashcall-conversion': 886 * 1024,
};

describe.each(ENGINES)('hostile: large bodies from an account holder (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 20 } });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('refuses 15 MB per route by Content-Length (413 4130 at its limit) while another account is unhurt', async () => {
    const attack = accountLargeBodies();
    const state = await attack.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 5 });
    // A body refused from its headers meets a closed connection, which the client may see as a reset before it reads
    // the answer (status 0): a refusal too. So is the account's request rate (429 4290), also answered from the
    // headers, when a quick machine lets the attacker go past it.
    const answered = (reply: LargeBodyReply, limit: number) =>
      reply.status === 0
        ? expect(reply.body.reset).toMatch(/^E(CONNRESET|PIPE)$/)
        : reply.status === 429
          ? expect(reply.body).toMatchObject({ error: { code: 4290 } })
          : expect([reply.status, reply.body]).toEqual([
              413,
              { error: { code: 4130, msg: `Request body is larger than ${limit} bytes` } },
            ]);
    for (const replies of results) {
      LARGE_BODY_ROUTES.forEach((route, i) => answered(replies[i]!, LIMITS[route.path]));
    }
    LARGE_BODY_ROUTES.forEach((route, i) =>
      expect(
        results.some((replies) => replies[i]!.status === 413),
        route.path,
      ).toBe(true),
    );
    expectVictimUnhurt(figures);
  });
});
