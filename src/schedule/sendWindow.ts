import { QUARTER_HOUR_MS, fromWall, wallHour, wallIsoWeekday, zoneOffsetMs } from './zonedTime.js';

/** The default lifetime of a message (spec section 8): to be sent, and then to reach a final status. */
export const DEFAULT_TTL_SECONDS = 25 * 3600;
/**
 * How far ahead a window is looked for when no completion time bounds it: the send time may be 7 days ahead
 * (plus the 12 hours a zone may be ahead of UTC), and any hours/days pattern repeats within the following week.
 */
export const SEARCH_HORIZON_MS = 15 * 86_400_000;

/** A message's send window, in wall-clock terms of its zones. */
export interface SendWindow {
  /** The subscriber's zones, or Europe/Moscow when useLocalTime is false; allowed instants are allowed in all. */
  readonly zones: readonly string[];
  /** localSendTime as wall-clock milliseconds (the same wall time read as UTC), if given. */
  readonly sendFrom?: number | undefined;
  /** localCompletionTime likewise, if given. */
  readonly sendUntil?: number | undefined;
  readonly hours?: readonly number[] | undefined;
  readonly days?: readonly number[] | undefined;
  readonly ttlSeconds?: number | undefined;
}

export interface SendPlan {
  /** The first allowed instant at or after now; null when the window never opens before the deadline. */
  readonly plannedSendAt: Date | null;
  /**
   * The end of the message's one lifetime: its planned send time + ttl. A final status (and a read) must come by
   * then; carriers are given the time left until it.
   */
  readonly expiresAt: Date;
  /** The message must be sent by then (localCompletionTime or the end of its lifetime), else it becomes unsent. */
  readonly deadlineAt: Date;
}

/** True when the window has no constraint at all: the message may go at once (the common case, kept cheap). */
export function isUnconstrained(window: SendWindow): boolean {
  return window.sendFrom === undefined && window.sendUntil === undefined && !window.hours && !window.days;
}

/**
 * Plans a message: its planned send time (the first allowed instant from now), the end of its lifetime (the
 * planned time + ttl: counted once, however late it is then sent) and its send deadline: the earlier of that end
 * and localCompletionTime (the earliest instant it passes in any zone).
 */
export function planSend(window: SendWindow, nowMs: number): SendPlan {
  const ttlMs = (window.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  if (isUnconstrained(window)) {
    const end = new Date(nowMs + ttlMs);
    return { plannedSendAt: new Date(nowMs), expiresAt: end, deadlineAt: end };
  }
  const completion = completionInstant(window);
  const horizon = completion ?? nowMs + SEARCH_HORIZON_MS;
  const planned = nextAllowedInstant(window, nowMs, horizon);
  if (planned === null) {
    const end = new Date(completion ?? nowMs);
    return { plannedSendAt: null, expiresAt: end, deadlineAt: end };
  }
  const expires = planned + ttlMs;
  return {
    plannedSendAt: new Date(planned),
    expiresAt: new Date(expires),
    deadlineAt: new Date(Math.min(completion ?? expires, expires)),
  };
}

/** The instant localCompletionTime is reached in the first of the window's zones to reach it. */
export function completionInstant(window: SendWindow): number | undefined {
  if (window.sendUntil === undefined) return undefined;
  // The whole last second of the completion time is still allowed.
  return Math.min(...window.zones.map((zone) => fromWall(zone, window.sendUntil!))) + 999;
}

/**
 * The first instant in [fromMs, untilMs] allowed in every zone of the window, or null. Each zone's hour, weekday
 * and offset are constant within a UTC quarter-hour, so the search steps at most one quarter-hour at a time and
 * jumps straight to the localSendTime bound.
 */
export function nextAllowedInstant(window: SendWindow, fromMs: number, untilMs: number): number | null {
  const hours = window.hours ? new Set(window.hours) : undefined;
  const days = window.days ? new Set(window.days) : undefined;
  let t = fromMs;
  while (t <= untilMs) {
    const slotEnd = (Math.floor(t / QUARTER_HOUR_MS) + 1) * QUARTER_HOUR_MS;
    let next = t;
    for (const zone of window.zones) {
      const offset = zoneOffsetMs(zone, t);
      const wall = t + offset;
      if (window.sendUntil !== undefined && wall >= window.sendUntil + 1000) return null;
      if (window.sendFrom !== undefined && wall < window.sendFrom) {
        next = Math.max(next, Math.min(window.sendFrom - offset, slotEnd));
      } else if ((hours && !hours.has(wallHour(wall))) || (days && !days.has(wallIsoWeekday(wall)))) {
        next = Math.max(next, slotEnd);
      }
    }
    if (next === t) return t;
    t = next;
  }
  return null;
}
