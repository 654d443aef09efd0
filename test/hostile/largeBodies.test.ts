import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_FAILURE_LIMIT } from '../../src/config/config.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { type LargeBodyReply, largeBodies } from './attacks/largeBodies.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: large bodies without credentials (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    // The attack's bad signatures count against its own address (X-Forwarded-For from the trusted loopback proxy).
    t = await startTestHerald(engine, { delivery: { delayMs: 20 }, env: { HERALD_TRUST_PROXY: '127.0.0.1' } });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  // 404 before the body, 413 at the route limit, 401 before JSON.parse.
  it('refuses them before parsing while another account is unhurt', async () => {
    const attack = largeBodies();
    const state = await attack.setup(t);
    const started = performance.now();
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 5 });
    const seconds = (performance.now() - started) / 1000;
    // A body refused from its headers alone meets a closed connection (Herald reads no more of it), which the client
    // may see as a reset before it reads the answer: status 0, a refusal too.
    const refusedOrReset = (reply: LargeBodyReply, status: number, body: unknown) =>
      reply.status === 0
        ? expect(reply.body.reset).toMatch(/^E(CONNRESET|PIPE)$/)
        : expect([reply.status, reply.body]).toEqual([status, body]);
    for (const [unknown, signIn] of results) {
      refusedOrReset(unknown!, 404, { error: { code: 4040, msg: 'Connector nope not found' } });
      // Refused from its Content-Length, and the rest of it read and dropped: the client reads the 413 (issue 27).
      expect([signIn!.status, signIn!.body]).toEqual([
        413,
        { error: { code: 4130, msg: 'Request body is larger than 8192 bytes' } },
      ]);
    }
    expect(results.some(([unknown]) => unknown!.status === 404)).toBe(true);
    const unsigned = results.map((replies) => replies[2]!).filter((reply) => reply.status !== 0);
    expect(unsigned.every((reply) => [401, 429].includes(reply.status))).toBe(true);
    expect(unsigned.find((reply) => reply.status === 401)!.body).toEqual({
      error: { code: 4012, msg: 'Bad credentials' },
    });
    // Each bad signature is a failed authentication of the sender's address: past the limit (and what refilled
    // while the attack ran), 429 before the body.
    const allowed = DEFAULT_AUTH_FAILURE_LIMIT + Math.ceil((seconds * DEFAULT_AUTH_FAILURE_LIMIT) / 60);
    expect(unsigned.filter((r) => r.status === 401).length).toBeLessThanOrEqual(allowed);
    if (unsigned.length > allowed) expect(unsigned.filter((r) => r.status === 429)[0]!.body.error.code).toBe(4290);
    expectVictimUnhurt(figures);
  });
});
