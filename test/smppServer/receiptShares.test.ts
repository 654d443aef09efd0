import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { bindAccount, SmppTestClient, submitWithReceipts } from './smppClient.js';

/**
 * A process's places for receipt POSTs are shared among the accounts (DESIGN 22; smppServer/receiptDelivery.ts): the
 * POSTs of an account whose client does not answer wait for its window and hold their places, at most its share of
 * them, so another account's receipts still go. Two places, one an account; windows wide enough for any POST, so that
 * its limit, not a full window, is what keeps an account from a second place; a deliver_sm unanswered counts as lost
 * only after ten minutes, far past the test.
 */
describe.each(ENGINES)('receipt POSTs shared among accounts on %s', (engine) => {
  let t: TestHerald;
  const clients: SmppTestClient[] = [];

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: { HERALD_SMPP_PORT: '0', HERALD_SMPP_RATE_LIMIT: '1000' },
      delivery: { delayMs: 5 },
      smppServer: {
        pollMs: 50,
        retryMs: 200,
        deliverWindow: 100,
        deliverTimeoutMs: 600_000,
        receiptPosts: { process: 2, account: 1 },
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  const bind = (a: TestAccount, command: 'bind_transmitter' | 'bind_receiver'): Promise<SmppTestClient> =>
    bindAccount(t, a, command, clients);
  const openPosts = async (accountId: number): Promise<number> => {
    const [row] = await t.herald.ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM callback_deliveries WHERE account_id = $1 AND state = 'open' AND via_smpp`,
      [accountId],
    );
    return row!.n;
  };

  it("delivers an account's receipts while another account's client holds its share unanswered", async () => {
    const receipts = t.herald.smppServer!.receipts;
    const slow = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const slowIds = await submitWithReceipts(await bind(slow, 'bind_transmitter'), 40);
    // Formed into POSTs of several lanes before a receiver binds: more than every place of the process.
    await waitFor(async () => (await openPosts(slow.id)) >= 3, {
      timeoutMs: 20_000,
      describe: async () => `${await openPosts(slow.id)} open POSTs`,
    });
    const slowReceiver = await bind(slow, 'bind_receiver');
    slowReceiver.answering = false;
    // Its one place taken by a POST whose deliver_sm go unanswered; its window has room, its limit keeps it at one.
    await waitFor(() => slowReceiver.held.length > 0 && receipts.postsHeld(slow.id) === 1, {
      timeoutMs: 20_000,
      describe: () => `held ${slowReceiver.held.length}, POSTs ${receipts.postsHeld(slow.id)}`,
    });

    const quick = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
    const quickReceiver = await bind(quick, 'bind_receiver');
    const quickIds = await submitWithReceipts(await bind(quick, 'bind_transmitter'), 5);
    await waitFor(() => quickIds.every((id) => quickReceiver.receiptIds().includes(id)), {
      timeoutMs: 20_000,
      describe: () => `${quickReceiver.receiptIds().length} of 5 receipts`,
    });
    // The slow account still holds its one place, its deliver_sm unanswered.
    expect(receipts.postsHeld(slow.id)).toBe(1);
    expect(slowReceiver.held.length).toBeLessThan(40);

    // Its client answers again: every receipt comes, once (none timed out to be sent again).
    slowReceiver.answering = true;
    slowReceiver.answerHeld();
    await waitFor(() => slowIds.every((id) => slowReceiver.receiptIds().includes(id)), {
      timeoutMs: 30_000,
      describe: () => `${slowReceiver.receiptIds().length} of 40 receipts`,
    });
    expect(slowReceiver.receiptIds()).toHaveLength(40);
  }, 90_000);
});
