import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { GUESSES_PER_ROUND, signInGuessing } from './attacks/signInGuessing.js';
import { createVictim, expectVictimUnhurt, percentiles, underAttack, VICTIM_P99_MS } from './harness.js';

/** Ten failures a minute (the default is 30): ten scrypts a round, one after another on a 2-core machine. */
const LIMIT = 10;

describe.each(ENGINES)('hostile: concurrent wrong passwords at sign-in (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    // The attack's addresses come in X-Forwarded-For from the (trusted) loopback proxy; the victim's is 127.0.0.1.
    t = await startTestHerald(engine, {
      // Hashes at the production cost: the attack is about the time they take.
      env: {
        HERALD_TRUST_PROXY: '127.0.0.1',
        HERALD_AUTH_FAILURE_LIMIT: String(LIMIT),
        HERALD_PASSWORD_SCRYPT_COST: '15',
      },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('lets only the failure limit per address reach scrypt (rest 429); pages, another account stay fast', async () => {
    const attack = signInGuessing();
    const state = await attack.setup(t);
    // Static pages are read from disk on libuv's thread pool, which scrypt shares: timed all through the attack.
    const pageTimes: number[] = [];
    let attacking = true;
    const pages = (async () => {
      while (attacking) {
        const started = performance.now();
        const page = await fetch(`${t.url}/app`);
        await page.arrayBuffer();
        pageTimes.push(performance.now() - started);
        // Served (200), or 503 5034 without a web build: either way the file was looked for on the pool.
        expect([200, 503]).toContain(page.status);
      }
    })();
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 1 });
    attacking = false;
    await pages;

    for (const { answers } of results) {
      expect(answers).toHaveLength(GUESSES_PER_ROUND);
      const refused = answers.filter((a) => a.status === 429);
      expect(answers.filter((a) => a.status === 401).every((a) => a.code === 4012)).toBe(true);
      expect(answers.filter((a) => a.status === 401)).toHaveLength(LIMIT);
      expect(refused).toHaveLength(GUESSES_PER_ROUND - LIMIT);
      expect(refused.every((a) => a.code === 4290 && Number(a.retryAfter) >= 1)).toBe(true);
    }
    expectVictimUnhurt(figures);
    const page = percentiles(pageTimes);
    expect(page.n).toBeGreaterThan(10);
    expect(page.p99, JSON.stringify(page)).toBeLessThan(VICTIM_P99_MS);
    // Ten scrypts a round, one or two at a time: a few seconds of a busy machine's CPU per round.
  }, 90_000);
});
