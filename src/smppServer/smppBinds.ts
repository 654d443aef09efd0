/** How often a process refreshes its binds' rows (smpp_binds): their window use in the lists is this old at most. */
export const SMPP_BIND_HEARTBEAT_MS = 10_000;

/** A bind row not refreshed for this long belongs to a process that died: it no longer counts nor is listed. */
export const SMPP_BIND_STALE_MS = 3 * SMPP_BIND_HEARTBEAT_MS;

/** The earliest refresh of a bind still up at `now`. */
export function smppBindsLiveSince(now: Date): Date {
  return new Date(now.getTime() - SMPP_BIND_STALE_MS);
}
