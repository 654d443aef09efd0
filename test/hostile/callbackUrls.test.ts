import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { uniqueCallbackUrls } from './attacks/callbackUrls.js';
import { createVictim, expectVictimUnhurt, underAttack } from './harness.js';

const LIMIT = 300;

describe.each(ENGINES)('hostile: unique callback URLs (%s)', (engine) => {
  let t: TestHerald;
  let receiver: Receiver;
  let victim: TestAccount;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 20 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true', HERALD_CALLBACK_URLS_PER_DAY: String(LIMIT) },
    });
    victim = await createVictim(t);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('takes at most the daily new URL limit (4291, nothing reserved) while another account is unhurt', async () => {
    const attack = uniqueCallbackUrls(receiver.url);
    const state = await attack.setup(t);
    const { results, figures } = await underAttack(t, victim, (round) => attack.round(t, state, round), { rounds: 8 });
    const codes = results.flatMap((reply) => reply.body.items.map((item: { code: number }) => item.code));
    expect(codes.filter((c) => c === 201)).toHaveLength(LIMIT);
    expect(codes.filter((c) => c !== 201).every((c) => c === 4291)).toBe(true);
    const refused = results.flatMap((reply) => reply.body.items).find((item: { code: number }) => item.code === 4291);
    expect(refused).toEqual({ code: 4291, msg: `Too many new callback URLs today: at most ${LIMIT} a day` });
    expectVictimUnhurt(figures);
    // Only the messages taken were charged.
    expect((await t.call('GET', '/api/v1/balance', { token: state.token })).body).toEqual({ RUB: 1000 - LIMIT });
    // A URL it already has still works the same day; the limit counts new URLs only.
    const again = await attack.round(t, state, 0);
    expect(again.body.items.map((item: { code: number }) => item.code)).toEqual(Array(100).fill(201));
  });

  it('takes exactly the daily limit when batches of one account race, while another account is unhurt', async () => {
    const attack = uniqueCallbackUrls(receiver.url);
    const state = await attack.setup(t);
    // Four batches of 100 new URLs at a time: each would count the URLs of the day before the others commit.
    let next = 0;
    const { results, figures } = await underAttack(t, victim, () => attack.round(t, state, next++), {
      rounds: 8,
      concurrency: 4,
    });
    const codes = results.flatMap((reply) => reply.body.items.map((item: { code: number }) => item.code));
    expect(codes.filter((c) => c === 201)).toHaveLength(LIMIT);
    expect(codes.filter((c) => c !== 201).every((c) => c === 4291)).toBe(true);
    expect((await t.call('GET', '/api/v1/balance', { token: state.token })).body).toEqual({ RUB: 1000 - LIMIT });
    expectVictimUnhurt(figures);
  });

  it('spends no work on idle URLs: 10,000 of them leave another account unhurt while callbacks flow', async () => {
    const owner = await t.createAccount({ senderNames: [['SMS', 'Owner']] });
    // Ten thousand URLs with their lane cursors, made the way the limit would otherwise allow over a month.
    await t.testDb.db.query(
      `WITH targets AS (
         INSERT INTO callback_targets (account_id, url, created_at, used_at)
         SELECT $1, $2 || '?idle=' || i, now(), now() FROM generate_series(1, 10000) AS i RETURNING id
       )
       INSERT INTO callback_cursors (target_id, lane, cursor_txid, cursor_event_id)
       SELECT id, lane, '0', 0 FROM targets, generate_series(0, 15) AS lane`,
      [owner.id, receiver.url],
    );
    const send = async (round: number) =>
      t.call('POST', '/api/v1/message', {
        token: owner.traffic,
        body: [
          {
            channelType: 'SMS',
            senderName: 'Owner',
            destination: '79167770001',
            content: `flow ${round}`,
            callbackUrl: `${receiver.url}?idle=${round + 1}`,
          },
        ],
      });
    const { results, figures } = await underAttack(t, victim, send, { rounds: 10 });
    const ids = results.map((reply) => reply.body.items[0].messageUuid as string);
    await waitFor(() => ids.every((id) => receiver.events().some((e) => e.message_uuid === id)));
    expectVictimUnhurt(figures);
  });
});
