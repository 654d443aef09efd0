import type { Queryable } from '../db/db.js';
import { messageApplyTransitions } from './transitionSql.js';
import { statusTransition } from './transitions.js';

/*
 * The statements on the messages of a fraud hold (fraud/ is their one user): a held message stays `sending` with
 * due_at 'infinity' and its hold's id until the operator releases or rejects the hold.
 */

/** Makes the messages of a released hold due (at their planned time, or now if that has passed). Returns how many. */
export async function release(tx: Queryable, accountId: number, holdId: number, now: Date): Promise<number> {
  const rows = await tx.query(
    `UPDATE messages SET due_at = greatest(coalesce(planned_send_at, $3), $3), fraud_hold_id = NULL
     WHERE account_id = $1 AND fraud_hold_id = $2 AND status = 'sending' AND due_at = 'infinity'
     RETURNING 1`,
    [accountId, holdId, now],
  );
  return rows.length;
}

/**
 * Makes up to `limit` messages of a rejected hold unsent with `errorCode`, refunded, with their callbacks (they keep
 * the hold's id: the message object shows no hold once it is final). Returns how many it took: call again until
 * fewer than `limit`.
 */
export async function reject(
  tx: Queryable,
  accountId: number,
  holdId: number,
  now: Date,
  errorCode: number,
  limit: number,
): Promise<number> {
  const waiting = await tx.query<{ id: string }>(
    `SELECT id FROM messages WHERE account_id = $1 AND fraud_hold_id = $2 AND status = 'sending'
     ORDER BY id LIMIT $3 FOR UPDATE`,
    [accountId, holdId, limit],
  );
  await messageApplyTransitions(
    tx,
    waiting.map((w) =>
      statusTransition({ accountId, id: w.id, status: 'unsent', at: now, errorCode, detail: 'fraud hold rejected' }),
    ),
  );
  return waiting.length;
}
