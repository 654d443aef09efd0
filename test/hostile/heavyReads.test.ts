import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT_CONCURRENCY, loadConfig } from '../../src/config/config.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, TEST_POOL_SIZE } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { HEAVY_READ_CONCURRENCY, heavyReads } from './attacks/heavyReads.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: concurrent heavy reads of one account (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;
  // The default limit; on PostgreSQL, the default with the pool of the test's database (8 connections, engines.ts).
  const places =
    engine === 'pglite'
      ? DEFAULT_ACCOUNT_CONCURRENCY
      : loadConfig({ DATABASE_URL: 'postgres://test', HERALD_DB_POOL_SIZE: String(TEST_POOL_SIZE) }).accountConcurrency;

  beforeAll(async () => {
    // A flowing clock: the requests waiting for one of the account's places give up after a while of it.
    t = await startTestHerald(engine, {
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_ACCOUNT_CONCURRENCY: String(places) },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it(`serves ${HEAVY_READ_CONCURRENCY} reads at once a few at a time, while another account is unhurt`, async () => {
    const attack = heavyReads();
    const state = await attack.setup(t);
    // The attacker's requests under way and waiting, looked at while the attack runs.
    const peak = { running: 0, waiting: 0 };
    const look = setInterval(() => {
      const load = t.herald.ctx.limits.concurrency.load(state.accountId);
      peak.running = Math.max(peak.running, load.running);
      peak.waiting = Math.max(peak.waiting, load.waiting);
    }, 5);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), {
      rounds: 4,
      concurrency: attack.concurrency,
    }).finally(() => clearInterval(look));
    expectVictimUnhurt(figures);
    // A few at a time, the others waiting their turn.
    expect(peak.running).toBe(places);
    expect(peak.waiting).toBeGreaterThan(0);
    // Each read is answered, or refused as the rate limit refuses (the account's places and their queue were full).
    for (const reply of results) {
      if (reply.status !== 200) {
        expect([reply.status, reply.body, reply.headers.get('retry-after')]).toEqual([
          429,
          { error: { code: 4290, msg: 'Too many requests; retry after 1 s' } },
          '1',
        ]);
      }
    }
    expect(results.filter((reply) => reply.status === 200).length).toBeGreaterThan(HEAVY_READ_CONCURRENCY);
  });
});
