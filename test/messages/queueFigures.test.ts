import { describe, expect } from 'vitest';
import type { Queryable } from '../../src/db/db.js';
import { claimLimits, messageClaimDue, messageClaimsEnd } from '../../src/messages/claimSql.js';
import { messageQueueFigures } from '../../src/messages/messageStatisticsSql.js';
import { messageApplyTransitions } from '../../src/messages/transitionSql.js';
import { retryTransition } from '../../src/messages/transitions.js';
import { ENGINES } from '../helpers/engines.js';
import { ownRowsTests } from '../helpers/transactions.js';
import { insertAccount, insertMessage } from '../factories/rows.js';
import { messagesSet } from '../helpers/messageRows.js';

const T0 = new Date('2026-03-10T09:00:00Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const LEASE_MS = 60_000;

const waiting = async (db: Queryable, now: Date) =>
  (await messageQueueFigures(db, now)).find((q) => q.state === 'waiting')!;

/**
 * The queue's figures (the console's Connectors page and herald_queue_* metrics): the age of the oldest waiting
 * message is how long it has waited to be sent, whatever its lease or retry time says.
 */
describe.each(ENGINES)('messageQueueFigures (%s)', (engine) => {
  const own = ownRowsTests(engine);

  own('counts a message claimed and retried from when it fell due, not from its next try', async (tx) => {
    const account = await insertAccount(tx);
    const id = await insertMessage(tx, { accountId: account.id, createdAt: T0 });
    // A submitter takes it (a claim record holds it), the carrier is down: a retry 2 s later (the record goes once
    // the claim's outcomes are written), taken again, and so on.
    const [claimed] = await messageClaimDue(tx, at(1), claimLimits(10), LEASE_MS);
    expect(claimed?.id).toBe(id);
    await messageApplyTransitions(tx, [
      retryTransition({ accountId: account.id, id, at: at(50), dueAt: at(52), reason: 'connector down' }),
    ]);
    await messageClaimsEnd(tx, [claimed!.claim_id!]);
    expect(await messageClaimDue(tx, at(52), claimLimits(10), LEASE_MS)).toHaveLength(1);
    expect(await waiting(tx, at(56))).toEqual({ state: 'waiting', messages: 1, oldest_age_s: 56 });
  });

  own('leaves out messages planned for later and messages held, but counts them', async (tx) => {
    const account = await insertAccount(tx);
    await insertMessage(tx, { accountId: account.id, createdAt: T0, plannedSendAt: at(600) });
    const held = await insertMessage(tx, { accountId: account.id, createdAt: T0 });
    // Held as a fraud hold or a paused dispatch holds it: due never, until released.
    await messagesSet(tx, { ids: [held] }, { due_at: 'infinity' });
    await insertMessage(tx, { accountId: account.id, createdAt: at(20) });
    expect(await waiting(tx, at(30))).toEqual({ state: 'waiting', messages: 3, oldest_age_s: 10 });
  });

  own('is 0 with nothing waiting', async (tx) => {
    expect(await waiting(tx, at(30))).toEqual({ state: 'waiting', messages: 0, oldest_age_s: 0 });
  });
});
