import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { templatePatterns } from './attacks/templatePatterns.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: long texts against an approved template of placeholders (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, { clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }) });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it('matches texts in linear time, only a match getting the template, while another account is unhurt', async () => {
    const state = await templatePatterns.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => templatePatterns.round(t, state, round), {
      rounds: 5,
    });
    expectVictimUnhurt(figures);
    const items = results[0]!.body.items as { code: number; messageUuid: string }[];
    expect(items.map((item) => item.code)).toEqual([201, 201, 201, 201, 201]);
    const templateIds = await Promise.all(
      items.map(
        async (item) =>
          (await t.call('GET', `/api/v1/message/${item.messageUuid}`, { token: state.token })).body.templateId,
      ),
    );
    expect(templateIds).toEqual([null, null, null, null, state.templateId]);
  });
});
