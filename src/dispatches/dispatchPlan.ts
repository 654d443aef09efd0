import type { Queryable } from '../db/db.js';
import { dispatchMessages } from '../messages/index.js';
import { lookupSubscriber, type NumberingPlan } from '../numbering/index.js';
import {
  DEFAULT_TTL_SECONDS,
  isUnconstrained,
  messageWindow,
  PaceSlots,
  SEARCH_HORIZON_MS,
  type SendWindow,
  type WindowFields,
} from '../schedule/index.js';

/** Held messages planned per read and write when a dispatch with a send window starts or resumes. */
const PLAN_BATCH = 20_000;

/**
 * Plans a dispatch's held messages when it starts or resumes (DESIGN 4 and 15): each at the first free slot of the
 * dispatch's speed (from `start`, one every `spacingMs`) that its send window allows, in its subscriber's zones
 * (useLocalTime) or Moscow's, the speed spread evenly from the moment the window opens. Each then lives its ttl from
 * its planned time; its deadline is the earlier of that and its localCompletionTime (or, on a resume, of the deadline
 * its start gave: a lifetime is counted once). A dispatch without a window is planned in one statement.
 */
export async function planHeldMessages(
  tx: Queryable,
  numberingPlan: NumberingPlan,
  accountId: number,
  dispatch: { readonly id: string; readonly message: WindowFields },
  start: Date,
  spacingMs: number,
): Promise<void> {
  if (isUnconstrained(messageWindow(dispatch.message, []))) {
    await dispatchMessages.schedule(tx, accountId, dispatch.id, start, spacingMs);
    return;
  }
  const slots = new PaceSlots(start.getTime(), spacingMs);
  const windows = new Map<string, SendWindow>();
  const windowOf = (m: dispatchMessages.HeldMessage): SendWindow => {
    const zones = m.useLocalTime ? lookupSubscriber(numberingPlan, m.destination, m.country).zones : [];
    const key = zones.join(' ');
    let window = windows.get(key);
    if (!window) windows.set(key, (window = messageWindow(m, zones)));
    return window;
  };
  for (let after: string | null = null; ;) {
    const held = await dispatchMessages.held(tx, accountId, dispatch.id, after, PLAN_BATCH);
    await dispatchMessages.plan(
      tx,
      accountId,
      held.map((m) => planOf(m, windowOf(m), slots, start)),
    );
    if (held.length < PLAN_BATCH) return;
    after = held.at(-1)!.id;
  }
}

function planOf(
  m: dispatchMessages.HeldMessage,
  window: SendWindow,
  slots: PaceSlots,
  start: Date,
): dispatchMessages.HeldPlan {
  const deadline = m.deadlineAt.getTime();
  // Past its deadline already (a resume after its lifetime): the submitter makes it unsent (9001) at once.
  if (deadline <= start.getTime())
    return { id: m.id, dueAt: start, plannedSendAt: start, deadlineAt: m.deadlineAt, expiresAt: m.deadlineAt };
  const at = slots.take(window, Math.min(deadline, start.getTime() + SEARCH_HORIZON_MS));
  // Its window never opens before its deadline: the submitter makes it unsent (9002) at once, as a plain message.
  if (at === null) return { id: m.id, dueAt: start, plannedSendAt: null, deadlineAt: start, expiresAt: start };
  const expires = at + (m.ttl ?? DEFAULT_TTL_SECONDS) * 1000;
  return {
    id: m.id,
    dueAt: new Date(at),
    plannedSendAt: new Date(at),
    deadlineAt: new Date(Math.min(deadline, expires)),
    expiresAt: new Date(expires),
  };
}
