import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { inboundSettingsFlood } from './attacks/inboundSettings.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

// The defaults (HERALD_TRAFFIC_CENTERS_PER_ACCOUNT, HERALD_INBOUND_RULES_PER_ACCOUNT,
// HERALD_INBOUND_RULE_SENDER_NAMES).
const CENTERS = 100;
const RULES = 100;

describe.each(ENGINES)('hostile: traffic centers and inbound rules past their ceilings (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    // Requests per second are not what this attack is about (as in the hostile benchmark).
    t = await startTestHerald(engine, { env: { HERALD_RATE_LIMIT: '0' } });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('stores at most the ceilings, refuses huge rules unread, while another account is unhurt', async () => {
    const attack = inboundSettingsFlood();
    const state = await attack.setup(t);
    // A third of the rounds each: enough to pass both ceilings.
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), {
      rounds: 3 * (RULES + 10),
    });
    const of = (kind: number) => results.filter((_, round) => round % 3 === kind);

    const centers = of(0);
    expect(centers.filter((r) => r.status === 201)).toHaveLength(CENTERS - 1);
    for (const r of centers.filter((r) => r.status !== 201)) {
      expect([r.status, r.body]).toEqual([
        409,
        { error: { code: 4094, msg: `Too many traffic centers: at most ${CENTERS} per account` } },
      ]);
    }
    const rules = of(1);
    expect(rules.filter((r) => r.status === 201)).toHaveLength(RULES);
    for (const r of rules.filter((r) => r.status !== 201)) {
      expect([r.status, r.body]).toEqual([
        409,
        { error: { code: 4094, msg: `Too many inbound rules: at most ${RULES} per account` } },
      ]);
    }
    for (const r of of(2)) expect([r.status, r.body.error.code]).toEqual([413, 4130]);
    expectVictimUnhurt(figures);

    expect((await t.call('GET', '/api/v1/traffic-centers', { token: state.token })).body.items).toHaveLength(CENTERS);
    expect((await t.call('GET', '/api/v1/inbound-rules', { token: state.token })).body.items).toHaveLength(RULES);
    // The victim's own settings are untouched by the attacker's ceilings.
    expect(
      (await t.call('POST', '/api/v1/traffic-centers', { token: victim.system, body: { name: 'Mine' } })).status,
    ).toBe(201);
  });
});
