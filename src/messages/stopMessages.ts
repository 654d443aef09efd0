import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { messageStop } from './messageLookupSql.js';
import { DELIVERY_ERRORS } from './statuses.js';

/**
 * What a message stop asks of the capability that runs cascades (cascades/: `cascadesStop`, given in main.ts):
 * messages/ is below cascades/ and knows nothing of what a cascade is beside its id.
 */
export interface CascadeStopper {
  /**
   * Stops running cascades in the caller's transaction, which holds their steps' messages: no later step will be
   * created. Returns those that were running.
   */
  stopCascades(tx: Queryable, accountId: number, ids: readonly string[], now: Date): Promise<Set<string>>;
}

/** What became of one uuid of a stop: 200 stopped, 202 being handed to a carrier, 403 sent or final, 404 none. */
export interface StopItem {
  readonly messageUuid: string;
  readonly code: 200 | 202 | 403 | 404;
}

/**
 * Stops an account's messages (POST /api/v1/message/stop, and the SMPP server's cancel_sm): each uuid's item, in the
 * order given. A step of a running cascade stops the cascade from that step on: 200, or 202 while its current step
 * is being handed to the carrier.
 */
export async function messagesStop(
  ctx: AppContext,
  stopper: CascadeStopper,
  accountId: number,
  uuids: readonly string[],
): Promise<StopItem[]> {
  const valid = [...new Set(uuids.filter((u) => UUID_PATTERN.test(u)).map((u) => u.toLowerCase()))];
  const now = ctx.clock.now();
  const { found, cascadesStopped } =
    valid.length === 0
      ? { found: [], cascadesStopped: new Set<string>() }
      : await ctx.db.transaction(async (tx) => {
          const found = await messageStop(tx, accountId, valid, now, DELIVERY_ERRORS.stopped);
          // Messages first, then their cascades: the order every transaction locks them in.
          const cascades = [...new Set(found.flatMap((row) => (row.cascadeId ? [row.cascadeId] : [])))];
          const cascadesStopped =
            cascades.length > 0 ? await stopper.stopCascades(tx, accountId, cascades, now) : new Set<string>();
          return { found, cascadesStopped };
        });
  const byId = new Map(found.map((row) => [row.id, row]));
  const codeOf = (row: { stopped: boolean; status: string; leased: boolean }): 200 | 202 | 403 =>
    row.stopped ? 200 : row.status === 'sending' && row.leased ? 202 : 403;
  return uuids.map((messageUuid) => {
    const row = byId.get(messageUuid.toLowerCase());
    if (!row) return { messageUuid, code: 404 };
    // A running cascade stops as a whole from this step on: 200, or 202 while its current step (the latest) is
    // being handed to a carrier and may still go.
    if (row.cascadeId && cascadesStopped.has(row.cascadeId)) {
      const latest = row.later[0] ?? row;
      return { messageUuid, code: codeOf(latest) === 202 ? 202 : 200 };
    }
    return { messageUuid, code: codeOf(row) };
  });
}
