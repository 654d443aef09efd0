/** What every connection to PostgreSQL is opened with, the pools' and the listener's. */

/**
 * TCP keep-alive: probed after a minute quiet (the system's default is two hours), so that a firewall or a NAT that
 * drops quiet connections (some after 350 s) sees traffic, and one that died without a word is noticed instead of
 * leaving the next query or wake-up waiting.
 */
export const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 60_000 } as const;

/** A database that does not answer fails requests with 503 within seconds instead of holding them. */
export const CONNECT_TIMEOUT_MS = 5000;
