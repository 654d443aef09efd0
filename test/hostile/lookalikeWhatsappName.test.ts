import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message } from '../messages/messageFixtures.js';
import { LOOKALIKE_NAME, lookalikeWhatsappName, OWNER_NUMBER } from './attacks/lookalikeWhatsappName.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

describe.each(ENGINES)('hostile: a look-alike WhatsApp sender name (%s)', (engine) => {
  let t: TestHerald;
  let victim: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
    victim = await createVictim(t);
  });
  afterAll(async () => t?.close());

  it("gives the number's inbounds and window to its one owner only, while another account is unhurt", async () => {
    const attack = lookalikeWhatsappName(t.simulators!.providers.url);
    const state = await attack.setup(t);
    expect(state.copy).toEqual({
      status: 409,
      body: {
        error: {
          code: 4091,
          msg:
            `WhatsApp sender name "+${OWNER_NUMBER}" is the number of account ${state.owner.id} ` +
            `(approved as "${OWNER_NUMBER}"); a WhatsApp number has one owner`,
        },
      },
    });
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 20 });
    // Each round ended with A holding its inbound.
    expect(results.map((reply) => [reply.status, reply.body.total])).toEqual(results.map(() => [200, 1]));
    expectVictimUnhurt(figures);
    const inboundsOf = async (account: TestAccount): Promise<number> =>
      (await t.call('GET', '/api/v1/message?direction=inbound', { token: account.traffic })).body.total;
    expect(await inboundsOf(state.owner)).toBe(results.length);

    expect(await inboundsOf(state.thief)).toBe(0);
    expect(await t.testDb.db.query('SELECT 1 FROM whatsapp_windows WHERE account_id = $1', [state.thief.id])).toEqual(
      [],
    );
    // B's window with a subscriber who wrote to A stays shut: free text is refused; A's is open.
    const freeText = (account: TestAccount, senderName: string) =>
      t.call('POST', '/api/v1/message', {
        token: account.traffic,
        body: [
          message('WHATSAPP', {
            senderName,
            destination: '79168880000',
            content: { contentType: 'text', text: 'Hello again' },
          }),
        ],
      });
    expect((await freeText(state.thief, LOOKALIKE_NAME)).body.items[0]).toEqual({
      code: 4221,
      msg: 'No active template for content',
    });
    expect((await freeText(state.owner, OWNER_NUMBER)).body.items[0].code).toBe(201);
  });
});
