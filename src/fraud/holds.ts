import type { AppContext } from '../context.js';
import type { Queryable } from '../db/db.js';
import { DELIVERY_ERRORS, fraudHoldMessages } from '../messages/index.js';
import { normaliseDestination } from '../numbering/index.js';
import {
  allowance,
  type CountKey,
  judge,
  type KeyState,
  keysOf,
  NO_HISTORY,
  type PumpingSettings,
  splitKey,
} from './pumping.js';
import {
  holdDecide,
  type HoldRow,
  type KeyHold,
  pumpingCount,
  pumpingCountBatch,
  pumpingHolds,
  pumpingHoldsAdd,
} from './fraudSql.js';

/** A message of a batch as the detection sees it. */
export interface PumpingItem {
  readonly destination: string;
  readonly country: string | null;
}

/**
 * The account's open holds and trusted keys (pumpingHolds), read in the storing transaction before anything is
 * locked: batches of one account read them side by side. Counts come from {@link pumpingCheck}'s write, which locks
 * the keys' rows. Nothing is read when no message is counted.
 */
export async function pumpingHoldsBefore(
  tx: Queryable,
  accountId: number,
  settings: PumpingSettings,
  items: readonly (PumpingItem | undefined)[],
  now: Date,
): Promise<ReadonlyMap<CountKey, KeyHold>> {
  if (settings.mode === 'off' || items.every((i) => i === undefined)) return new Map();
  return pumpingHolds(tx, accountId, now);
}

/**
 * The pumping check of a batch being stored, in the storing transaction (generation.ts, storeMessages): `items[i]`
 * undefined for a message that is not stored or not counted (refused, a dispatch's held message); `holds` from
 * {@link pumpingHoldsBefore}. Returns, in order, the hold each message waits in, or undefined for one that goes. The
 * counts are exact when batches of one account race: one write of counts locks the keys' rows in key order and
 * returns them as the batches committed before left them (the count before the batch is the total less the batch; a
 * batch to the same key waits for this one's commit), with the history of the keys that may be over their
 * allowance (pumpingCountBatch; the others are judged on the batch alone, which cannot take them past their floor),
 * and, when something is held, a write takes the held messages back out of the counts and one adds them to their
 * holds. A hold opened by a batch between the holds' read and the count's write is not seen as open; the later
 * batch's messages to its key are over the allowance all the same (the earlier batch counted it full), so they
 * join it.
 */
export async function pumpingCheck(
  tx: Queryable,
  ctx: Pick<AppContext, 'metrics'>,
  accountId: number,
  settings: PumpingSettings,
  items: readonly (PumpingItem | undefined)[],
  holdsBefore: ReadonlyMap<CountKey, KeyHold>,
  now: Date,
): Promise<(number | undefined)[]> {
  if (settings.mode === 'off' || items.every((i) => i === undefined)) return items.map(() => undefined);
  const keyed = items.map((i) => (i ? keysOf(i.destination, i.country) : undefined));
  const counted = keyed.flatMap((k) => (k ? [k] : []));
  const added = new Map<CountKey, number>();
  for (const keys of counted) for (const key of keys) added.set(key, (added.get(key) ?? 0) + 1);
  const floors = { range: settings.rangeFloor, country: settings.countryFloor };
  const open = [...added.keys()].filter((key) => holdsBefore.get(key)?.openHold != null);
  const near = await pumpingCountBatch(tx, accountId, added, floors, open, now);
  const states = new Map<CountKey, KeyState>();
  for (const [key, n] of added) {
    const c = near.get(key);
    const hold = holdsBefore.get(key);
    if (c === undefined && hold === undefined) continue;
    states.set(key, {
      ...NO_HISTORY,
      ...(c && { current: c.sent - n, previous: c.previous, baseline: c.baseline, proofs: c.proofs }),
      ...(hold && { openHold: hold.openHold, trusted: hold.trusted }),
    });
  }
  const verdicts = judge(counted, states, settings, now);
  const takenBack = new Map<CountKey, number>();
  const held = new Map<CountKey, { messages: number; allowance: number }>();
  const holding = settings.mode === 'hold';
  verdicts.forEach((v, i) => {
    if (!v.burst || !holding) return;
    for (const key of counted[i]!) takenBack.set(key, (takenBack.get(key) ?? 0) - 1);
    const h = held.get(v.key);
    if (h) h.messages++;
    else
      held.set(v.key, {
        messages: 1,
        allowance: allowance(splitKey(v.key).kind, states.get(v.key) ?? NO_HISTORY, settings),
      });
  });
  await pumpingCount(tx, accountId, takenBack, 'sent', now);
  const bursts = verdicts.filter((v) => v.burst).length;
  if (bursts > 0) ctx.metrics.pumpingBursts.inc({ mode: settings.mode }, bursts);
  const holds = await pumpingHoldsAdd(tx, accountId, held, now);
  const opened = [...holds.values()].filter((h) => h.opened).length;
  if (opened > 0) ctx.metrics.fraudHoldsOpened.inc(opened);
  let n = 0;
  return keyed.map((k) => {
    if (!k) return undefined;
    const v = verdicts[n++]!;
    return v.burst && holding ? holds.get(v.key)!.id : undefined;
  });
}

/**
 * Counts proofs of real traffic (a confirmed verification code, a FLASHCALL conversion) on the keys of `destinations`
 * (their range, and their country when it is counted): each raises the key's allowance by the account's factor for
 * 7 days.
 */
export async function pumpingProofs(
  tx: Queryable,
  accountId: number,
  destinations: readonly string[],
  now: Date,
): Promise<void> {
  const proofs = new Map<CountKey, number>();
  for (const d of destinations) {
    for (const key of keysOf(d, normaliseDestination(d)?.country ?? null)) proofs.set(key, (proofs.get(key) ?? 0) + 1);
  }
  await pumpingCount(tx, accountId, proofs, 'proofs', now);
}

/** Messages rejected per statement. */
const REJECT_BATCH = 1000;

/**
 * The operator's decision on an open hold: `release` makes its messages due and trusts its key for the rest of the
 * UTC day (it does not hold again at once); `reject` makes each message unsent with errorCode 7701, refunded, with
 * the callbacks of any unsent message. Undefined when the hold is not open. A batch adding to the hold meanwhile
 * waits for the decision (the hold's row is locked) and then opens a new hold, or goes when released.
 */
export async function decideHold(
  ctx: AppContext,
  id: number,
  decision: 'release' | 'reject',
): Promise<HoldRow | undefined> {
  const now = ctx.clock.now();
  const decided = await ctx.db.transaction(async (tx) => {
    const trustedUntil = decision === 'release' ? endOfUtcDay(now) : null;
    const hold = await holdDecide(
      tx,
      id,
      { status: decision === 'release' ? 'released' : 'rejected', trustedUntil },
      now,
    );
    if (!hold) return undefined;
    if (decision === 'release') await fraudHoldMessages.release(tx, hold.account_id, hold.id, now);
    else {
      const code = DELIVERY_ERRORS.fraudHoldRejected;
      while ((await fraudHoldMessages.reject(tx, hold.account_id, hold.id, now, code, REJECT_BATCH)) === REJECT_BATCH);
    }
    return hold;
  });
  if (decided) {
    ctx.metrics.fraudHoldsDecided.inc({ decision });
    if (decision === 'release') ctx.wakeup.notify();
  }
  return decided;
}

function endOfUtcDay(at: Date): Date {
  const day = new Date(at);
  day.setUTCHours(24, 0, 0, 0);
  return day;
}
